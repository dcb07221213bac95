// iree-rs C API: file handles (`iree/io/file_handle.h` of upstream IREE),
// as parameter files are opened. Handles here are files on disk, mapped or
// preloaded; wrapping host allocations and file descriptors is not
// supported.

#ifndef IREE_IO_FILE_HANDLE_H_
#define IREE_IO_FILE_HANDLE_H_

#include <stdint.h>

#include "iree/base/api.h"

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

typedef uint32_t iree_io_file_access_t;
enum iree_io_file_access_bits_t {
  IREE_IO_FILE_ACCESS_READ = 1u << 0,
  IREE_IO_FILE_ACCESS_WRITE = 1u << 1,
};

// How a file is opened. Only READ and WRITE change anything here; the
// other bits are accepted hints.
typedef uint64_t iree_io_file_mode_t;
enum iree_io_file_mode_bits_t {
  IREE_IO_FILE_MODE_NONE = 0ull,
  IREE_IO_FILE_MODE_READ = 1ull << 0,
  IREE_IO_FILE_MODE_WRITE = 1ull << 1,
  IREE_IO_FILE_MODE_RANDOM_ACCESS = 1ull << 2,
  IREE_IO_FILE_MODE_SEQUENTIAL_SCAN = 1ull << 3,
  IREE_IO_FILE_MODE_DIRECT = 1ull << 4,
  IREE_IO_FILE_MODE_TEMPORARY = 1ull << 5,
  IREE_IO_FILE_MODE_SHARE_READ = 1ull << 6,
  IREE_IO_FILE_MODE_SHARE_WRITE = 1ull << 7,
  IREE_IO_FILE_MODE_OVERWRITE = 1ull << 8,
  IREE_IO_FILE_MODE_ASYNC = 1ull << 9,
};

typedef struct iree_io_file_handle_t iree_io_file_handle_t;

// Opens the existing file at |path| (mapped; writable with
// IREE_IO_FILE_MODE_WRITE). NOT_FOUND when it does not exist,
// PERMISSION_DENIED when |mode| is not allowed.
IREE_API_EXPORT iree_status_t iree_io_file_handle_open(
    iree_io_file_mode_t mode, iree_string_view_t path,
    iree_allocator_t host_allocator, iree_io_file_handle_t** out_handle);

// Opens the existing file at |path| and reads it whole into memory.
IREE_API_EXPORT iree_status_t iree_io_file_handle_preload(
    iree_io_file_mode_t mode, iree_string_view_t path,
    iree_allocator_t host_allocator, iree_io_file_handle_t** out_handle);

IREE_API_EXPORT void iree_io_file_handle_retain(iree_io_file_handle_t* handle);
IREE_API_EXPORT void iree_io_file_handle_release(iree_io_file_handle_t* handle);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // IREE_IO_FILE_HANDLE_H_
