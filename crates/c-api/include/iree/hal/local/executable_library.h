// iree-rs C API: the executable library ABI, version 0.6
// (`iree/hal/local/executable_library.h` of upstream IREE): what CPU kernel
// libraries built by the compiler (embedded ELF, system libraries, static
// libraries linked into the program) export and receive. The same layout
// as upstream's on 64-bit hosts (crates/hal-local/src/library.rs mirrors it
// with compile-time checks). Self-contained: kernels include it alone.

#ifndef IREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_
#define IREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_MSC_VER) && _MSC_VER >= 1900
#define IREE_RESTRICT __restrict
#elif defined(_MSC_VER)
#define IREE_RESTRICT
#elif defined(__cplusplus)
#define IREE_RESTRICT __restrict__
#else
#define IREE_RESTRICT restrict
#endif  // _MSC_VER

//===----------------------------------------------------------------------===//
// Versioning and the query function
//===----------------------------------------------------------------------===//

enum iree_hal_executable_library_feature_bits_t {
  IREE_HAL_EXECUTABLE_LIBRARY_FEATURE_NONE = 0u,
};
typedef uint32_t iree_hal_executable_library_features_t;

// The sanitizer a library was built with (the runtime must match it).
typedef enum iree_hal_executable_library_sanitizer_kind_e {
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE = 0,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS = 1,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_MEMORY = 2,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD = 3,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_UNDEFINED = 4,
  IREE_HAL_EXECUTABLE_LIBRARY_SANITIZER_MAX_ENUM = INT32_MAX,
} iree_hal_executable_library_sanitizer_kind_t;

typedef struct iree_hal_executable_environment_v0_t
    iree_hal_executable_environment_v0_t;

typedef uint32_t iree_hal_executable_library_version_t;
#define IREE_HAL_EXECUTABLE_LIBRARY_VERSION_0_6 0x00000006u
#define IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST \
  IREE_HAL_EXECUTABLE_LIBRARY_VERSION_0_6

// First member of every library version's structure.
typedef struct iree_hal_executable_library_header_t {
  iree_hal_executable_library_version_t version;
  // Library name (NUL-terminated); a `static` executable names it.
  const char* name;
  iree_hal_executable_library_features_t features;
  iree_hal_executable_library_sanitizer_kind_t sanitizer;
} iree_hal_executable_library_header_t;

// Returns the library of the newest version not above |max_version| (NULL
// when there is none), given the environment its dispatches will receive.
typedef const iree_hal_executable_library_header_t** (
    *iree_hal_executable_library_query_fn_t)(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment);

// The query function's symbol in dynamic libraries.
#define IREE_HAL_EXECUTABLE_LIBRARY_EXPORT_NAME \
  "iree_hal_executable_library_query"

//===----------------------------------------------------------------------===//
// Imports and the environment
//===----------------------------------------------------------------------===//

// A function a library imports; returns 0 on success.
typedef int (*iree_hal_executable_import_v0_t)(void* params, void* context,
                                               void* reserved);

// Calls |fn_ptr| for the library (lets the host wrap import calls).
typedef int (*iree_hal_executable_import_thunk_v0_t)(
    iree_hal_executable_import_v0_t fn_ptr, void* params, void* context,
    void* reserved);

typedef struct iree_hal_executable_import_table_v0_t {
  uint32_t count;
  // Sorted names; a leading '?' marks an optional import.
  const char* const* symbols;
} iree_hal_executable_import_table_v0_t;

#define IREE_HAL_PROCESSOR_DATA_CAPACITY_V0 8

// Architecture-specific processor feature bits.
typedef struct iree_hal_processor_v0_t {
  uint64_t data[IREE_HAL_PROCESSOR_DATA_CAPACITY_V0];
} iree_hal_processor_v0_t;

// Given to every dispatch of a library.
typedef struct iree_hal_executable_environment_v0_t {
  // Executable-level constants (the library's constant table count).
  const uint32_t* constants;
  iree_hal_executable_import_thunk_v0_t import_thunk;
  // Resolved imports (NULL for an optional import that is missing).
  const iree_hal_executable_import_v0_t* import_funcs;
  const void** import_contexts;
  iree_hal_processor_v0_t processor;
} iree_hal_executable_environment_v0_t;

//===----------------------------------------------------------------------===//
// Dispatches
//===----------------------------------------------------------------------===//

// Shared by every workgroup of one dispatch.
typedef struct iree_hal_executable_dispatch_state_v0_t {
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t constant_count;
  uint32_t workgroup_count_x;
  uint32_t workgroup_count_y;
  uint16_t workgroup_count_z;
  // Most workgroups that may run at once.
  uint8_t max_concurrency;
  uint8_t binding_count;
  const uint32_t* constants;
  void* const* binding_ptrs;
  const size_t* binding_lengths;
} iree_hal_executable_dispatch_state_v0_t;

// One workgroup's own state.
typedef struct iree_hal_executable_workgroup_state_v0_t {
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint16_t workgroup_id_z;
  uint16_t reserved;
  // The processor running it (for per-processor scratch).
  uint32_t processor_id;
  // Scratch of local_memory_pages pages, valid for this workgroup only.
  void* local_memory;
  uint32_t local_memory_size;
} iree_hal_executable_workgroup_state_v0_t;

// Runs one workgroup; returns 0 on success.
typedef int (*iree_hal_executable_dispatch_v0_t)(
    const iree_hal_executable_environment_v0_t* environment,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    const iree_hal_executable_workgroup_state_v0_t* workgroup_state);

#define IREE_HAL_EXECUTABLE_WORKGROUP_LOCAL_MEMORY_PAGE_SIZE 4096
#define IREE_HAL_EXECUTABLE_MAX_CONSTANT_COUNT 64
#define IREE_HAL_EXECUTABLE_MAX_BINDING_COUNT 64

enum iree_hal_executable_dispatch_flag_v0_bits_e {
  IREE_HAL_EXECUTABLE_DISPATCH_FLAG_V0_NONE = 0ull,
  // Workgroups must run one after another.
  IREE_HAL_EXECUTABLE_DISPATCH_FLAG_V0_SEQUENTIAL = 1ull << 0,
  // The workgroup size is chosen at dispatch time.
  IREE_HAL_EXECUTABLE_DISPATCH_FLAG_V0_WORKGROUP_SIZE_DYNAMIC = 1ull << 1,
};
typedef uint64_t iree_hal_executable_dispatch_flags_v0_t;

// What an export needs from its dispatches.
typedef struct iree_hal_executable_dispatch_attrs_v0_t {
  iree_hal_executable_dispatch_flags_v0_t flags;
  // Pages of workgroup-local memory.
  uint16_t local_memory_pages;
  uint8_t constant_count;
  uint8_t binding_count;
  uint32_t workgroup_size_x;
  uint32_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t parameter_count;
  uint64_t reserved_1[5];
} iree_hal_executable_dispatch_attrs_v0_t;

enum iree_hal_executable_dispatch_parameter_type_v0_e {
  IREE_HAL_EXECUTABLE_DISPATCH_PARAM_TYPE_V0_CONSTANT = 0,
  IREE_HAL_EXECUTABLE_DISPATCH_PARAM_TYPE_V0_BINDING = 1,
  IREE_HAL_EXECUTABLE_DISPATCH_PARAM_TYPE_V0_BUFFER_PTR = 2,
};
typedef uint8_t iree_hal_executable_dispatch_parameter_type_v0_t;

enum iree_hal_executable_dispatch_parameter_flag_v0_bits_e {
  IREE_HAL_EXECUTABLE_DISPATCH_PARAM_FLAG_V0_NONE = 0,
};
typedef uint16_t iree_hal_executable_dispatch_parameter_flags_v0_t;

// One reflected dispatch parameter.
typedef struct iree_hal_executable_dispatch_parameter_v0_t {
  iree_hal_executable_dispatch_parameter_type_v0_t type;
  uint8_t size;
  iree_hal_executable_dispatch_parameter_flags_v0_t flags;
  // Index into the export table's parameter names.
  uint16_t name;
  uint16_t offset;
} iree_hal_executable_dispatch_parameter_v0_t;

typedef struct iree_hal_executable_dispatch_occupancy_v0_t {
  int reserved;
} iree_hal_executable_dispatch_occupancy_v0_t;

typedef struct iree_hal_executable_source_location_v0_t {
  uint32_t line;
  uint32_t path_length;
  const char* path;
} iree_hal_executable_source_location_v0_t;

typedef struct iree_hal_executable_stage_location_table_v0_t {
  uint32_t count;
  const char* const* names;
  const iree_hal_executable_source_location_v0_t* locations;
} iree_hal_executable_stage_location_table_v0_t;

// The exported dispatch functions; every array but ptrs/attrs may be NULL.
typedef struct iree_hal_executable_export_table_v0_t {
  uint32_t count;
  const iree_hal_executable_dispatch_v0_t* ptrs;
  const iree_hal_executable_dispatch_attrs_v0_t* attrs;
  const iree_hal_executable_dispatch_parameter_v0_t** params;
  const iree_hal_executable_dispatch_occupancy_v0_t* occupancy;
  const char* const* names;
  const char* const* tags;
  const char* const* parameter_names;
  const iree_hal_executable_source_location_v0_t* source_locations;
  const iree_hal_executable_stage_location_table_v0_t* stage_locations;
} iree_hal_executable_export_table_v0_t;

typedef struct iree_hal_executable_constant_table_v0_t {
  // Executable-level constants the environment carries.
  uint32_t count;
} iree_hal_executable_constant_table_v0_t;

typedef struct iree_hal_executable_source_file_v0_t {
  uint32_t path_length;
  const char* path;
  uint32_t content_length;
  const uint8_t* content;
} iree_hal_executable_source_file_v0_t;

typedef struct iree_hal_executable_source_file_table_v0_t {
  uint32_t count;
  const iree_hal_executable_source_file_v0_t* files;
} iree_hal_executable_source_file_table_v0_t;

// The library of version 0.6, as the query function returns it.
typedef struct iree_hal_executable_library_v0_t {
  const iree_hal_executable_library_header_t* header;
  iree_hal_executable_import_table_v0_t imports;
  iree_hal_executable_export_table_v0_t exports;
  iree_hal_executable_constant_table_v0_t constants;
  iree_hal_executable_source_file_table_v0_t sources;
} iree_hal_executable_library_v0_t;

#endif  // IREE_HAL_LOCAL_EXECUTABLE_LIBRARY_H_
