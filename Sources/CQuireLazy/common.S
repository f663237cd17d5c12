/* The resolver every trampoline's stub jumps to the first time its function is called
   (see trampolines.S and scripts/generate-lazy-libraries). It keeps every register a call's
   arguments can be in, asks quire_lazy_resolve (lazy.c) for the function's address (which also
   fills the function's slot, so the next call jumps straight there), puts the registers back
   and jumps to the function: the function runs as if called directly, and returns to the
   original caller. */
#if defined(__x86_64__)
  .section .note.GNU-stack,"",%progbits
  .text
  .globl quire_lazy_common
  .hidden quire_lazy_common
  .type quire_lazy_common, @function
  .p2align 4
/* On entry the function's index is on the stack (pushed by its stub) above the caller's
   return address. %rax holds a variadic call's count of vector registers. */
quire_lazy_common:
  pushq %rdi
  pushq %rsi
  pushq %rdx
  pushq %rcx
  pushq %r8
  pushq %r9
  pushq %rax
  subq $136, %rsp            /* eight xmm registers, and the stack 16-byte aligned */
  movdqu %xmm0, 0(%rsp)
  movdqu %xmm1, 16(%rsp)
  movdqu %xmm2, 32(%rsp)
  movdqu %xmm3, 48(%rsp)
  movdqu %xmm4, 64(%rsp)
  movdqu %xmm5, 80(%rsp)
  movdqu %xmm6, 96(%rsp)
  movdqu %xmm7, 112(%rsp)
  movq 192(%rsp), %rdi       /* the index: 136 + 7 * 8 bytes up */
  call quire_lazy_resolve
  movq %rax, %r11
  movdqu 0(%rsp), %xmm0
  movdqu 16(%rsp), %xmm1
  movdqu 32(%rsp), %xmm2
  movdqu 48(%rsp), %xmm3
  movdqu 64(%rsp), %xmm4
  movdqu 80(%rsp), %xmm5
  movdqu 96(%rsp), %xmm6
  movdqu 112(%rsp), %xmm7
  addq $136, %rsp
  popq %rax
  popq %r9
  popq %r8
  popq %rcx
  popq %rdx
  popq %rsi
  popq %rdi
  addq $8, %rsp              /* the index */
  jmp *%r11
  .size quire_lazy_common, .-quire_lazy_common
#elif defined(__aarch64__)
  .section .note.GNU-stack,"",%progbits
  .text
  .globl quire_lazy_common
  .hidden quire_lazy_common
  .type quire_lazy_common, %function
  .p2align 4
/* On entry x17 holds the function's index; x0-x7 and q0-q7 the arguments, x8 an indirect
   result's address, x30 the caller's return address. */
quire_lazy_common:
  stp x29, x30, [sp, #-224]!
  mov x29, sp
  stp x0, x1, [sp, #16]
  stp x2, x3, [sp, #32]
  stp x4, x5, [sp, #48]
  stp x6, x7, [sp, #64]
  str x8, [sp, #80]
  stp q0, q1, [sp, #96]
  stp q2, q3, [sp, #128]
  stp q4, q5, [sp, #160]
  stp q6, q7, [sp, #192]
  mov x0, x17
  bl quire_lazy_resolve
  mov x16, x0
  ldp q6, q7, [sp, #192]
  ldp q4, q5, [sp, #160]
  ldp q2, q3, [sp, #128]
  ldp q0, q1, [sp, #96]
  ldr x8, [sp, #80]
  ldp x6, x7, [sp, #64]
  ldp x4, x5, [sp, #48]
  ldp x2, x3, [sp, #32]
  ldp x0, x1, [sp, #16]
  ldp x29, x30, [sp], #224
  br x16
  .size quire_lazy_common, .-quire_lazy_common
#endif
