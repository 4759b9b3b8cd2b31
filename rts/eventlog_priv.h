/* eventlog_priv.h — between the two halves of the event-log writer.
 *
 * eventlog.c knows events (types, header, payloads, open and close); eventlog_writer.c
 * knows memory and output (chunks, blocks, the queue, the writer thread, the sink).
 * Nothing else includes this header.
 */
#ifndef LZ_EVENTLOG_PRIV_H
#define LZ_EVENTLOG_PRIV_H

#include "eventlog.h"

#define LZ_EV_MARKER_BYTES (LZ_EV_HEADER_BYTES + 14) /* a BLOCK_MARKER event */

/* The file sink: ctx is a FILE *. */
size_t lz_evw_file_sink(void *ctx, const void *bytes, size_t n);

/* Set up the writer for a new log (no writer thread running). */
void lz_evw_init(LzEvSink sink, void *ctx, size_t chunk_bytes, unsigned max_chunks);
/* Pass bytes to the sink from the calling thread: only while the writer thread is not
 * running (the header; EVENT_DATA_END). True if the sink took them all. */
bool lz_evw_write_now(const void *bytes, size_t n);
/* Give each of the n buffers an empty block and start the writer thread. Returns 0 or
 * an errno value; on failure nothing stays allocated or running. */
int lz_evw_start(LzEvBuf *const *bufs, unsigned n);
/* Close every buffer's block, let the writer drain the queue, join it, free the
 * chunks. False if the sink failed at some point. */
bool lz_evw_stop(LzEvBuf *const *bufs, unsigned n);
/* Tell the sink the log is over (closes the file). True on success. */
bool lz_evw_finish(void);

#endif
