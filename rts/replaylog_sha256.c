/* replaylog_sha256.c — SHA-256 (FIPS 180-4), to identify the binary a replay log belongs to.
 *
 * A replay log records the SHA-256 of the executable that wrote it, and replay refuses a
 * log of another binary. The hash is the one `sha256sum prog` prints, so a person can
 * check it by hand. It is computed here, in plain C, so that the runtime needs no crypto
 * library (libcrypto is not among the packages the project installs, and linking it into
 * every program for one hash at start-up would be out of proportion). Speed is about
 * 200 MB/s, a few milliseconds for a typical executable, paid only when recording or
 * replaying. See docs/notes/replay-log.md.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replaylog.h"

static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void compress_block(uint32_t h[8], const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 =
        k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + round_k[i] + w[i];
    uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void lz_sha256_init(LzSha256 *s) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, h0, sizeof h0);
  s->total = 0;
  s->fill = 0;
}

void lz_sha256_update(LzSha256 *s, const void *data, size_t n) {
  const uint8_t *p = data;
  s->total += n;
  if (s->fill) {
    size_t k = 64 - s->fill < n ? 64 - s->fill : n;
    memcpy(s->block + s->fill, p, k);
    s->fill += k;
    p += k;
    n -= k;
    if (s->fill < 64) return;
    compress_block(s->h, s->block);
    s->fill = 0;
  }
  for (; n >= 64; p += 64, n -= 64)
    compress_block(s->h, p);
  memcpy(s->block, p, n);
  s->fill = n;
}

void lz_sha256_final(LzSha256 *s, uint8_t out[LZ_SHA256_BYTES]) {
  uint64_t bits = s->total * 8;
  uint8_t pad[72] = {0x80};
  size_t padn = (s->fill < 56 ? 56 : 120) - s->fill;
  for (int i = 0; i < 8; i++)
    pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
  lz_sha256_update(s, pad, padn + 8);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++)
      out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void lz_sha256(const void *data, size_t n, uint8_t out[LZ_SHA256_BYTES]) {
  LzSha256 s;
  lz_sha256_init(&s);
  lz_sha256_update(&s, data, n);
  lz_sha256_final(&s, out);
}

int lz_sha256_file(const char *path, uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  LzSha256 s;
  lz_sha256_init(&s);
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t k = read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
      close(fd);
      return -1;
    }
    if (k == 0) break;
    lz_sha256_update(&s, buf, (size_t)k);
  }
  close(fd);
  lz_sha256_final(&s, out);
  return 0;
}

/* The running executable's ELF build id (NT_GNU_BUILD_ID in a PT_NOTE segment of the main
 * program), found in memory: no file read. */
typedef struct BuildId {
  uint8_t *out;
  size_t n;
} BuildId;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  BuildId *b = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const uint8_t *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
      if (desc + nh->n_descsz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
          nh->n_descsz >= 8 && nh->n_descsz <= LZ_SHA256_BYTES) {
        memcpy(b->out, desc, nh->n_descsz);
        b->n = nh->n_descsz;
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1; /* the first object is the main program: stop there */
}

int lz_exe_identity(uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen) {
  memset(out, 0, LZ_SHA256_BYTES);
  BuildId b = {out, 0};
  dl_iterate_phdr(find_build_id, &b);
  if (b.n) return 0;
  return lz_sha256_file("/proc/self/exe", out, err, errlen);
}

/* The build id in the notes of an ELF file's image (its bytes in `f`, `n` long); 0 if none. */
static size_t file_build_id(const uint8_t *f, size_t n, uint8_t out[LZ_SHA256_BYTES]) {
  if (n < sizeof(ElfW(Ehdr)) || memcmp(f, ELFMAG, SELFMAG) != 0) return 0;
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f;
  if (eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > n ||
      (size_t)eh->e_phnum * sizeof(ElfW(Phdr)) > n - eh->e_phoff)
    return 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    ElfW(Phdr) ph;
    memcpy(&ph, f + eh->e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_NOTE || ph.p_offset > n || ph.p_filesz > n - ph.p_offset) continue;
    const uint8_t *p = f + ph.p_offset, *end = p + ph.p_filesz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) nh;
      memcpy(&nh, p, sizeof nh);
      const uint8_t *name = p + sizeof nh, *desc = name + ((nh.n_namesz + 3) & ~3u);
      if (desc > end || nh.n_descsz > (size_t)(end - desc)) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
          nh.n_descsz >= 8 && nh.n_descsz <= LZ_SHA256_BYTES) {
        memcpy(out, desc, nh.n_descsz);
        return nh.n_descsz;
      }
      p = desc + ((nh.n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

int lz_exe_identity_file(const char *path, uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen) {
  memset(out, 0, LZ_SHA256_BYTES);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  uint8_t head[1 << 16]; /* the program headers and notes are at the start of the file */
  ssize_t k = read(fd, head, sizeof head);
  close(fd);
  if (k > 0 && file_build_id(head, (size_t)k, out)) return 0;
  return lz_sha256_file(path, out, err, errlen);
}

void lz_sha256_hex(const uint8_t hash[LZ_SHA256_BYTES], char hex[2 * LZ_SHA256_BYTES + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < LZ_SHA256_BYTES; i++) {
    hex[2 * i] = digits[hash[i] >> 4];
    hex[2 * i + 1] = digits[hash[i] & 15];
  }
  hex[2 * LZ_SHA256_BYTES] = 0;
}
