/* What bounds a short interpreted loop: a computed-goto interpreter (upstream
 * IREE's scheme) with 16-byte ops and a register file in memory, running a
 * fused loop latch plus N ops per trip. Two latches:
 *
 *   target: the next ip is `code + ip->t`, a field loaded through the
 *           current ip (what both interpreters did), so each trip waits for
 *           that load before the next op's address is known;
 *   step:   the next ip is `ip - k`, k an immediate of the handler (the
 *           interpreter's `jump_to` picks such an arm by a predicted jump).
 *
 * docs/interpreter.md ("What the loops are bound by") quotes its output.
 *
 *   gcc -O2 xtask/experiments/dispatch_floor.c -o /tmp/dispatch_floor && /tmp/dispatch_floor
 *
 * Not built by cargo; the project itself needs no C toolchain. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef struct { uint8_t tag, pad; uint16_t a, b, r, n, c, t, f; } Op;
enum { ADD, NOP, RET, LATCH, STEP1 /* STEP1 + k: step back k + 1 ops */ };
#define MAX_BODY 5

__attribute__((noinline)) static uint32_t run(const Op *code, uint32_t *regs) {
  static void *handlers[] = {&&add, &&nop, &&ret, &&latch, &&s1, &&s2, &&s3, &&s4, &&s5, &&s6};
  const Op *ip = code;
#define NEXT goto *handlers[ip->tag]
  NEXT;
add:
  regs[ip->r] = regs[ip->a] + regs[ip->b];
  ip++;
  NEXT;
nop:
  ip++;
  NEXT;
#define LATCH_BODY                                     \
  uint32_t sum = regs[ip->a] + regs[ip->b];            \
  regs[ip->r] = sum;                                   \
  int more = (int32_t)sum < (int32_t)regs[ip->n];      \
  regs[ip->c] = more;                                  \
  if (!__builtin_expect(more, 1)) {                    \
    ip = code + ip->f;                                 \
    NEXT;                                              \
  }
latch: {
  LATCH_BODY
  ip = code + ip->t;
  NEXT;
}
#define STEP(K) s##K: { LATCH_BODY ip -= (K - 1); NEXT; }
  STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6)
ret:
  return regs[ip->r];
}

static double time_loop(int body_tag, int body, int step) {
  const uint32_t trips = 10000000;
  Op code[MAX_BODY + 2];
  int k = 0;
  for (int j = 0; j < body; j++) code[k++] = (Op){body_tag, 0, 10 + 2 * j, 8, 10 + 2 * j};
  code[k] = (Op){step ? STEP1 + body : LATCH, 0, 0, 2, 0, 1, 3, 0, (uint16_t)(k + 1)};
  k++;
  code[k++] = (Op){RET, 0, 0, 0, 10};
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    uint32_t regs[32] = {0};
    regs[1] = trips, regs[2] = 1, regs[8] = 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    volatile uint32_t result = run(code, regs);
    (void)result;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    if (s < best) best = s;
  }
  return best * 1e3;
}

int main(void) {
  printf("ms per 10M trips   latch: target   step\n");
  for (int tag = ADD; tag <= NOP; tag++)
    for (int body = 0; body <= MAX_BODY; body++)
      printf("%d %-4s + latch    %13.1f %7.1f\n", body, tag == ADD ? "adds" : "nops", time_loop(tag, body, 0),
             time_loop(tag, body, 1));
  return 0;
}
