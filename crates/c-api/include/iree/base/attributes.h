// iree-rs C API: compiler attributes used by the public headers.
//
// Written for iree-rs; names and meanings follow upstream IREE's
// `iree/base/attributes.h` so that programs written against upstream's
// headers compile unchanged.

#ifndef IREE_BASE_ATTRIBUTES_H_
#define IREE_BASE_ATTRIBUTES_H_

#ifdef __cplusplus
#define IREE_API_EXPORT extern "C"
#define IREE_API_EXPORT_VARIABLE extern "C"
#else
#define IREE_API_EXPORT
#define IREE_API_EXPORT_VARIABLE extern
#endif  // __cplusplus

// Calling convention of function pointers in the API (the platform default).
#define IREE_API_PTR

// Marks fields whose layout may change between releases.
#define IREE_API_UNSTABLE

#if defined(__has_builtin)
#define IREE_HAVE_BUILTIN(x) __has_builtin(x)
#else
#define IREE_HAVE_BUILTIN(x) 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define IREE_PRINTF_ATTRIBUTE(string_index, first_to_check) \
  __attribute__((__format__(__printf__, string_index, first_to_check)))
#define IREE_ATTRIBUTE_NORETURN __attribute__((noreturn))
#define IREE_ATTRIBUTE_ALWAYS_INLINE __attribute__((always_inline))
#define IREE_ATTRIBUTE_NOINLINE __attribute__((noinline))
#define IREE_ATTRIBUTE_UNUSED __attribute__((unused))
#define IREE_LIKELY(x) (__builtin_expect(!!(x), 1))
#define IREE_UNLIKELY(x) (__builtin_expect(!!(x), 0))
#else
#define IREE_PRINTF_ATTRIBUTE(string_index, first_to_check)
#define IREE_ATTRIBUTE_NORETURN
#define IREE_ATTRIBUTE_ALWAYS_INLINE
#define IREE_ATTRIBUTE_NOINLINE
#define IREE_ATTRIBUTE_UNUSED
#define IREE_LIKELY(x) (x)
#define IREE_UNLIKELY(x) (x)
#endif

// `restrict` as each compiler spells it (defined the same way by
// iree/hal/local/executable_library.h, which stands alone).
#if defined(_MSC_VER) && _MSC_VER >= 1900
#define IREE_RESTRICT __restrict
#elif defined(_MSC_VER)
#define IREE_RESTRICT
#elif defined(__cplusplus)
#define IREE_RESTRICT __restrict__
#else
#define IREE_RESTRICT restrict
#endif  // _MSC_VER

#if defined(__cplusplus) && __cplusplus >= 201703L
#define IREE_MUST_USE_RESULT [[nodiscard]]
#elif defined(__GNUC__) || defined(__clang__)
#define IREE_MUST_USE_RESULT __attribute__((warn_unused_result))
#else
#define IREE_MUST_USE_RESULT
#endif

#define IREE_ATTRIBUTE_PACKED __attribute__((__packed__))

#endif  // IREE_BASE_ATTRIBUTES_H_
