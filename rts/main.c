/* main.c — the C entry point of every compiled Lz program.
 *
 * Kept alone in its own object file: a static library member is linked only when one
 * of its symbols is needed, so programs (which need main) get it and the runtime's unit
 * tests (which define their own main) do not. lz_main_closure is the static closure the
 * code generator emits for the program's `main`.
 */
#include "rts.h"

extern LzWord lz_main_closure[];

int main(int argc, char **argv) { return lz_rts_main(argc, argv, lz_main_closure); }
