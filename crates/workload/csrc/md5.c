/*
 * The MD5 compression function (RFC 1321) for verify=md5. It lives in C
 * because gcc schedules it about a quarter faster than the md-5 crate's
 * assembly or portable Rust on the machines ioscope is measured on (640
 * against 500 MB/s per core), and fio's C md5 is what verify=md5 is
 * compared with.
 *
 * Each step's chain of dependencies is kept short: the message word and
 * the constant are added before the round function (they need nothing
 * from the step before), and G's two disjoint terms are added one at a
 * time, the one without b first.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* floor(abs(sin(i + 1)) * 2^32), RFC 1321 section 3.4. */
static const uint32_t K[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

#define ROTL(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
/* Step i: word k of the block, rotation s, round function value f. */
#define STEP(a, b, f, k, s, i) \
	do { \
		a += x[k] + K[i]; \
		a += (f); \
		a = ROTL(a, s) + (b); \
	} while (0)
#define F(a, b, c, d, k, s, i) STEP(a, b, ((c ^ d) & b) ^ d, k, s, i)
#define G(a, b, c, d, k, s, i) \
	do { \
		a += ~d & c; \
		STEP(a, b, d & b, k, s, i); \
	} while (0)
#define H(a, b, c, d, k, s, i) STEP(a, b, (c ^ d) ^ b, k, s, i)
#define I(a, b, c, d, k, s, i) STEP(a, b, c ^ (b | ~d), k, s, i)

/* Runs `blocks` 64-byte blocks at `data` through the state. */
void ioscope_md5_blocks(uint32_t state[4], const uint8_t *data, size_t blocks)
{
	uint32_t a = state[0], b = state[1], c = state[2], d = state[3];

	for (; blocks; blocks--, data += 64) {
		uint32_t x[16];
		uint32_t a0 = a, b0 = b, c0 = c, d0 = d;

		/* MD5's words are little endian, as are the CPUs ioscope builds
		 * for (build.rs refuses others). */
		memcpy(x, data, sizeof(x));

		F(a, b, c, d, 0, 7, 0);   F(d, a, b, c, 1, 12, 1);  F(c, d, a, b, 2, 17, 2);   F(b, c, d, a, 3, 22, 3);
		F(a, b, c, d, 4, 7, 4);   F(d, a, b, c, 5, 12, 5);  F(c, d, a, b, 6, 17, 6);   F(b, c, d, a, 7, 22, 7);
		F(a, b, c, d, 8, 7, 8);   F(d, a, b, c, 9, 12, 9);  F(c, d, a, b, 10, 17, 10); F(b, c, d, a, 11, 22, 11);
		F(a, b, c, d, 12, 7, 12); F(d, a, b, c, 13, 12, 13); F(c, d, a, b, 14, 17, 14); F(b, c, d, a, 15, 22, 15);

		G(a, b, c, d, 1, 5, 16);  G(d, a, b, c, 6, 9, 17);  G(c, d, a, b, 11, 14, 18); G(b, c, d, a, 0, 20, 19);
		G(a, b, c, d, 5, 5, 20);  G(d, a, b, c, 10, 9, 21); G(c, d, a, b, 15, 14, 22); G(b, c, d, a, 4, 20, 23);
		G(a, b, c, d, 9, 5, 24);  G(d, a, b, c, 14, 9, 25); G(c, d, a, b, 3, 14, 26);  G(b, c, d, a, 8, 20, 27);
		G(a, b, c, d, 13, 5, 28); G(d, a, b, c, 2, 9, 29);  G(c, d, a, b, 7, 14, 30);  G(b, c, d, a, 12, 20, 31);

		H(a, b, c, d, 5, 4, 32);  H(d, a, b, c, 8, 11, 33); H(c, d, a, b, 11, 16, 34); H(b, c, d, a, 14, 23, 35);
		H(a, b, c, d, 1, 4, 36);  H(d, a, b, c, 4, 11, 37); H(c, d, a, b, 7, 16, 38);  H(b, c, d, a, 10, 23, 39);
		H(a, b, c, d, 13, 4, 40); H(d, a, b, c, 0, 11, 41); H(c, d, a, b, 3, 16, 42);  H(b, c, d, a, 6, 23, 43);
		H(a, b, c, d, 9, 4, 44);  H(d, a, b, c, 12, 11, 45); H(c, d, a, b, 15, 16, 46); H(b, c, d, a, 2, 23, 47);

		I(a, b, c, d, 0, 6, 48);  I(d, a, b, c, 7, 10, 49); I(c, d, a, b, 14, 15, 50); I(b, c, d, a, 5, 21, 51);
		I(a, b, c, d, 12, 6, 52); I(d, a, b, c, 3, 10, 53); I(c, d, a, b, 10, 15, 54); I(b, c, d, a, 1, 21, 55);
		I(a, b, c, d, 8, 6, 56);  I(d, a, b, c, 15, 10, 57); I(c, d, a, b, 6, 15, 58); I(b, c, d, a, 13, 21, 59);
		I(a, b, c, d, 4, 6, 60);  I(d, a, b, c, 11, 10, 61); I(c, d, a, b, 2, 15, 62); I(b, c, d, a, 9, 21, 63);

		a += a0;
		b += b0;
		c += c0;
		d += d0;
	}
	state[0] = a;
	state[1] = b;
	state[2] = c;
	state[3] = d;
}
