//go:build amd64 && !purego

#include "textflag.h"

// Eight BLAKE2s leaves side by side in AVX2: 32-bit lane j of every Y
// register belongs to leaf j. Registers during the rounds:
//   Y0-Y3   v0-v3        Y4-Y7  v4-v7      Y8-Y11  v12-v15
//   Y12     the v8-v11 word of the current G (v8-v11 live in the frame)
//   Y13     scratch for the 12- and 7-bit rotations
//   Y14     byte shuffle for the 16-bit rotation, Y15 for the 8-bit one
// Frame (hardware SP):
//   0..511    the stripe's message, word i of all eight leaves at 32*i
//   512..639  v8..v11
//   640..895  the chaining values h0..h7 (word k of all leaves at 640+32*k)
//   896..903  the counter words of the current stripe

#define MSG(i) (i*32)(SP)
#define C(i) (512+i*32)(SP)
#define H(k) (640+k*32)(SP)

// G is the BLAKE2s mixing function on eight leaves at once; c is a frame
// slot, x and y message words.
#define G(a, b, c, d, x, y) \
	VMOVDQU c, Y12; \
	VPADDD b, a, a; \
	VPADDD x, a, a; \
	VPXOR a, d, d; \
	VPSHUFB Y14, d, d; \
	VPADDD d, Y12, Y12; \
	VPXOR Y12, b, b; \
	VPSRLD $12, b, Y13; \
	VPSLLD $20, b, b; \
	VPOR Y13, b, b; \
	VPADDD b, a, a; \
	VPADDD y, a, a; \
	VPXOR a, d, d; \
	VPSHUFB Y15, d, d; \
	VPADDD d, Y12, Y12; \
	VMOVDQU Y12, c; \
	VPXOR Y12, b, b; \
	VPSRLD $7, b, Y13; \
	VPSLLD $25, b, b; \
	VPOR Y13, b, b

// TRANSPOSE8 transposes the 8x8 matrix of 32-bit words in r0..r7 (row j
// = register j) into o0..o7 using t0..t7 as scratch; o and r may share.
#define TRANSPOSE8(r0, r1, r2, r3, r4, r5, r6, r7, t0, t1, t2, t3, t4, t5, t6, t7) \
	VPUNPCKLDQ r1, r0, t0; \
	VPUNPCKHDQ r1, r0, t1; \
	VPUNPCKLDQ r3, r2, t2; \
	VPUNPCKHDQ r3, r2, t3; \
	VPUNPCKLDQ r5, r4, t4; \
	VPUNPCKHDQ r5, r4, t5; \
	VPUNPCKLDQ r7, r6, t6; \
	VPUNPCKHDQ r7, r6, t7; \
	VPUNPCKLQDQ t2, t0, r0; \
	VPUNPCKHQDQ t2, t0, r1; \
	VPUNPCKLQDQ t3, t1, r2; \
	VPUNPCKHQDQ t3, t1, r3; \
	VPUNPCKLQDQ t6, t4, r4; \
	VPUNPCKHQDQ t6, t4, r5; \
	VPUNPCKLQDQ t7, t5, r6; \
	VPUNPCKHQDQ t7, t5, r7; \
	VPERM2I128 $0x20, r4, r0, t0; \
	VPERM2I128 $0x31, r4, r0, t4; \
	VPERM2I128 $0x20, r5, r1, t1; \
	VPERM2I128 $0x31, r5, r1, t5; \
	VPERM2I128 $0x20, r6, r2, t2; \
	VPERM2I128 $0x31, r6, r2, t6; \
	VPERM2I128 $0x20, r7, r3, t3; \
	VPERM2I128 $0x31, r7, r3, t7

// LOADT loads eight 32-byte rows at base+off, base+off+stride, ... and
// stores their transpose to the frame at dst, dst+32, ...
#define LOADT(base, off, stride, dst) \
	VMOVDQU (off+0*stride)(base), Y0; \
	VMOVDQU (off+1*stride)(base), Y1; \
	VMOVDQU (off+2*stride)(base), Y2; \
	VMOVDQU (off+3*stride)(base), Y3; \
	VMOVDQU (off+4*stride)(base), Y4; \
	VMOVDQU (off+5*stride)(base), Y5; \
	VMOVDQU (off+6*stride)(base), Y6; \
	VMOVDQU (off+7*stride)(base), Y7; \
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15); \
	VMOVDQU Y8, (dst+0)(SP); \
	VMOVDQU Y9, (dst+32)(SP); \
	VMOVDQU Y10, (dst+64)(SP); \
	VMOVDQU Y11, (dst+96)(SP); \
	VMOVDQU Y12, (dst+128)(SP); \
	VMOVDQU Y13, (dst+160)(SP); \
	VMOVDQU Y14, (dst+192)(SP); \
	VMOVDQU Y15, (dst+224)(SP)


// func stripesAVX2(h *[8][8]uint32, p *byte, n int, t uint64)
// compresses n stripes of 512 bytes at p into the eight leaf states h
// (h[j] = leaf j), none final; t is the leaves' byte counter before the
// first stripe.
TEXT ·stripesAVX2(SB), 0, $904-32
	MOVQ h+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ t+24(FP), AX
	LOADT(DI, 0, 32, 640)
	TESTQ CX, CX
	JZ done

loop:
	LOADT(SI, 0, 64, 0)
	LOADT(SI, 32, 64, 256)

	ADDQ $64, AX
	MOVL AX, BX
	XORL $0x510e527f, BX
	MOVL BX, 896(SP)
	MOVQ AX, BX
	SHRQ $32, BX
	XORL $0x9b05688c, BX
	MOVL BX, 900(SP)

	VMOVDQU H(0), Y0
	VMOVDQU H(1), Y1
	VMOVDQU H(2), Y2
	VMOVDQU H(3), Y3
	VMOVDQU H(4), Y4
	VMOVDQU H(5), Y5
	VMOVDQU H(6), Y6
	VMOVDQU H(7), Y7
	VPBROADCASTD ·iv+0(SB), Y12
	VMOVDQU Y12, C(0)
	VPBROADCASTD ·iv+4(SB), Y12
	VMOVDQU Y12, C(1)
	VPBROADCASTD ·iv+8(SB), Y12
	VMOVDQU Y12, C(2)
	VPBROADCASTD ·iv+12(SB), Y12
	VMOVDQU Y12, C(3)
	VPBROADCASTD 896(SP), Y8
	VPBROADCASTD 900(SP), Y9
	VPBROADCASTD ·iv+24(SB), Y10
	VPBROADCASTD ·iv+28(SB), Y11
	VMOVDQU rot16<>(SB), Y14
	VMOVDQU rot8<>(SB), Y15


	// round 0
	G(Y0, Y4, C(0), Y8, MSG(0), MSG(1))
	G(Y1, Y5, C(1), Y9, MSG(2), MSG(3))
	G(Y2, Y6, C(2), Y10, MSG(4), MSG(5))
	G(Y3, Y7, C(3), Y11, MSG(6), MSG(7))
	G(Y0, Y5, C(2), Y11, MSG(8), MSG(9))
	G(Y1, Y6, C(3), Y8, MSG(10), MSG(11))
	G(Y2, Y7, C(0), Y9, MSG(12), MSG(13))
	G(Y3, Y4, C(1), Y10, MSG(14), MSG(15))
	// round 1
	G(Y0, Y4, C(0), Y8, MSG(14), MSG(10))
	G(Y1, Y5, C(1), Y9, MSG(4), MSG(8))
	G(Y2, Y6, C(2), Y10, MSG(9), MSG(15))
	G(Y3, Y7, C(3), Y11, MSG(13), MSG(6))
	G(Y0, Y5, C(2), Y11, MSG(1), MSG(12))
	G(Y1, Y6, C(3), Y8, MSG(0), MSG(2))
	G(Y2, Y7, C(0), Y9, MSG(11), MSG(7))
	G(Y3, Y4, C(1), Y10, MSG(5), MSG(3))
	// round 2
	G(Y0, Y4, C(0), Y8, MSG(11), MSG(8))
	G(Y1, Y5, C(1), Y9, MSG(12), MSG(0))
	G(Y2, Y6, C(2), Y10, MSG(5), MSG(2))
	G(Y3, Y7, C(3), Y11, MSG(15), MSG(13))
	G(Y0, Y5, C(2), Y11, MSG(10), MSG(14))
	G(Y1, Y6, C(3), Y8, MSG(3), MSG(6))
	G(Y2, Y7, C(0), Y9, MSG(7), MSG(1))
	G(Y3, Y4, C(1), Y10, MSG(9), MSG(4))
	// round 3
	G(Y0, Y4, C(0), Y8, MSG(7), MSG(9))
	G(Y1, Y5, C(1), Y9, MSG(3), MSG(1))
	G(Y2, Y6, C(2), Y10, MSG(13), MSG(12))
	G(Y3, Y7, C(3), Y11, MSG(11), MSG(14))
	G(Y0, Y5, C(2), Y11, MSG(2), MSG(6))
	G(Y1, Y6, C(3), Y8, MSG(5), MSG(10))
	G(Y2, Y7, C(0), Y9, MSG(4), MSG(0))
	G(Y3, Y4, C(1), Y10, MSG(15), MSG(8))
	// round 4
	G(Y0, Y4, C(0), Y8, MSG(9), MSG(0))
	G(Y1, Y5, C(1), Y9, MSG(5), MSG(7))
	G(Y2, Y6, C(2), Y10, MSG(2), MSG(4))
	G(Y3, Y7, C(3), Y11, MSG(10), MSG(15))
	G(Y0, Y5, C(2), Y11, MSG(14), MSG(1))
	G(Y1, Y6, C(3), Y8, MSG(11), MSG(12))
	G(Y2, Y7, C(0), Y9, MSG(6), MSG(8))
	G(Y3, Y4, C(1), Y10, MSG(3), MSG(13))
	// round 5
	G(Y0, Y4, C(0), Y8, MSG(2), MSG(12))
	G(Y1, Y5, C(1), Y9, MSG(6), MSG(10))
	G(Y2, Y6, C(2), Y10, MSG(0), MSG(11))
	G(Y3, Y7, C(3), Y11, MSG(8), MSG(3))
	G(Y0, Y5, C(2), Y11, MSG(4), MSG(13))
	G(Y1, Y6, C(3), Y8, MSG(7), MSG(5))
	G(Y2, Y7, C(0), Y9, MSG(15), MSG(14))
	G(Y3, Y4, C(1), Y10, MSG(1), MSG(9))
	// round 6
	G(Y0, Y4, C(0), Y8, MSG(12), MSG(5))
	G(Y1, Y5, C(1), Y9, MSG(1), MSG(15))
	G(Y2, Y6, C(2), Y10, MSG(14), MSG(13))
	G(Y3, Y7, C(3), Y11, MSG(4), MSG(10))
	G(Y0, Y5, C(2), Y11, MSG(0), MSG(7))
	G(Y1, Y6, C(3), Y8, MSG(6), MSG(3))
	G(Y2, Y7, C(0), Y9, MSG(9), MSG(2))
	G(Y3, Y4, C(1), Y10, MSG(8), MSG(11))
	// round 7
	G(Y0, Y4, C(0), Y8, MSG(13), MSG(11))
	G(Y1, Y5, C(1), Y9, MSG(7), MSG(14))
	G(Y2, Y6, C(2), Y10, MSG(12), MSG(1))
	G(Y3, Y7, C(3), Y11, MSG(3), MSG(9))
	G(Y0, Y5, C(2), Y11, MSG(5), MSG(0))
	G(Y1, Y6, C(3), Y8, MSG(15), MSG(4))
	G(Y2, Y7, C(0), Y9, MSG(8), MSG(6))
	G(Y3, Y4, C(1), Y10, MSG(2), MSG(10))
	// round 8
	G(Y0, Y4, C(0), Y8, MSG(6), MSG(15))
	G(Y1, Y5, C(1), Y9, MSG(14), MSG(9))
	G(Y2, Y6, C(2), Y10, MSG(11), MSG(3))
	G(Y3, Y7, C(3), Y11, MSG(0), MSG(8))
	G(Y0, Y5, C(2), Y11, MSG(12), MSG(2))
	G(Y1, Y6, C(3), Y8, MSG(13), MSG(7))
	G(Y2, Y7, C(0), Y9, MSG(1), MSG(4))
	G(Y3, Y4, C(1), Y10, MSG(10), MSG(5))
	// round 9
	G(Y0, Y4, C(0), Y8, MSG(10), MSG(2))
	G(Y1, Y5, C(1), Y9, MSG(8), MSG(4))
	G(Y2, Y6, C(2), Y10, MSG(7), MSG(6))
	G(Y3, Y7, C(3), Y11, MSG(1), MSG(5))
	G(Y0, Y5, C(2), Y11, MSG(15), MSG(11))
	G(Y1, Y6, C(3), Y8, MSG(9), MSG(14))
	G(Y2, Y7, C(0), Y9, MSG(3), MSG(12))
	G(Y3, Y4, C(1), Y10, MSG(13), MSG(0))

	// h ^= v[0:8] ^ v[8:16]
	VPXOR C(0), Y0, Y0
	VPXOR C(1), Y1, Y1
	VPXOR C(2), Y2, Y2
	VPXOR C(3), Y3, Y3
	VPXOR Y8, Y4, Y4
	VPXOR Y9, Y5, Y5
	VPXOR Y10, Y6, Y6
	VPXOR Y11, Y7, Y7
	VPXOR H(0), Y0, Y0
	VPXOR H(1), Y1, Y1
	VPXOR H(2), Y2, Y2
	VPXOR H(3), Y3, Y3
	VPXOR H(4), Y4, Y4
	VPXOR H(5), Y5, Y5
	VPXOR H(6), Y6, Y6
	VPXOR H(7), Y7, Y7
	VMOVDQU Y0, H(0)
	VMOVDQU Y1, H(1)
	VMOVDQU Y2, H(2)
	VMOVDQU Y3, H(3)
	VMOVDQU Y4, H(4)
	VMOVDQU Y5, H(5)
	VMOVDQU Y6, H(6)
	VMOVDQU Y7, H(7)

	ADDQ $512, SI
	DECQ CX
	JNZ loop

done:
	// The frame holds h word-major; transposing it back gives leaf-major rows.
	LOADT(SP, 640, 32, 0)
	VMOVDQU 0(SP), Y0
	VMOVDQU 32(SP), Y1
	VMOVDQU 64(SP), Y2
	VMOVDQU 96(SP), Y3
	VMOVDQU 128(SP), Y4
	VMOVDQU 160(SP), Y5
	VMOVDQU 192(SP), Y6
	VMOVDQU 224(SP), Y7
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET

// Byte shuffles that rotate every 32-bit word right by 16 and by 8.
DATA rot16<>+0(SB)/8, $0x0504070601000302
DATA rot16<>+8(SB)/8, $0x0d0c0f0e09080b0a
DATA rot16<>+16(SB)/8, $0x0504070601000302
DATA rot16<>+24(SB)/8, $0x0d0c0f0e09080b0a
GLOBL rot16<>(SB), RODATA|NOPTR, $32

DATA rot8<>+0(SB)/8, $0x0407060500030201
DATA rot8<>+8(SB)/8, $0x0c0f0e0d080b0a09
DATA rot8<>+16(SB)/8, $0x0407060500030201
DATA rot8<>+24(SB)/8, $0x0c0f0e0d080b0a09
GLOBL rot8<>(SB), RODATA|NOPTR, $32
