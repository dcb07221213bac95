// iree-rs C API: architecture and platform detection macros, with upstream
// IREE's names (`IREE_ARCH_*`, `IREE_PLATFORM_*`, `IREE_PTR_SIZE`).

#ifndef IREE_BASE_TARGET_PLATFORM_H_
#define IREE_BASE_TARGET_PLATFORM_H_

#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64)
#define IREE_ARCH_X86_64 1
#elif defined(__i386__) || defined(_M_IX86)
#define IREE_ARCH_X86_32 1
#elif defined(__aarch64__) || defined(_M_ARM64)
#define IREE_ARCH_ARM_64 1
#elif defined(__arm__) || defined(_M_ARM)
#define IREE_ARCH_ARM_32 1
#elif defined(__riscv) && (__riscv_xlen == 64)
#define IREE_ARCH_RISCV_64 1
#elif defined(__riscv) && (__riscv_xlen == 32)
#define IREE_ARCH_RISCV_32 1
#endif

#if UINTPTR_MAX > UINT32_MAX
#define IREE_PTR_SIZE 8
#else
#define IREE_PTR_SIZE 4
#endif

#if defined(__ANDROID__)
#define IREE_PLATFORM_ANDROID 1
#elif defined(__APPLE__)
#define IREE_PLATFORM_APPLE 1
#elif defined(_WIN32) || defined(_WIN64)
#define IREE_PLATFORM_WINDOWS 1
#elif defined(__linux__)
#define IREE_PLATFORM_LINUX 1
#endif

#if defined(__GNUC__) && !defined(__clang__)
#define IREE_COMPILER_GCC 1
#elif defined(__clang__)
#define IREE_COMPILER_CLANG 1
#elif defined(_MSC_VER)
#define IREE_COMPILER_MSVC 1
#endif

#endif  // IREE_BASE_TARGET_PLATFORM_H_
