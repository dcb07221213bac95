// Statuses as C sees them: code-only statuses, messages, formatted
// messages, annotations, joins, formatting into buffers and strings, and
// printing through the caller's FILE* (interleaved with its own output).

#include <stdio.h>

#include "iree/base/api.h"

static iree_status_t fail_inner(void) {
  return iree_status_allocate(IREE_STATUS_NOT_FOUND, "inner.c", 12,
                              iree_make_cstring_view("no such thing"));
}

static iree_status_t fail_outer(int value) {
  IREE_RETURN_IF_ERROR(fail_inner(), "while looking for %d", value);
  return iree_ok_status();
}

static iree_status_t fail_plain(void) {
  IREE_RETURN_IF_ERROR(fail_inner(), "while looking");
  return iree_ok_status();
}

static void print(const char* label, iree_status_t status) {
  fprintf(stdout, "%s: ", label);
  iree_status_fprint(stdout, status);
  iree_status_free(status);
}

int main(void) {
  // Code-only statuses need no storage.
  iree_status_t code_only = iree_status_from_code(IREE_STATUS_ABORTED);
  fprintf(stdout, "code %d ok %d\n", (int)iree_status_code(code_only),
          (int)iree_status_is_ok(code_only));
  print("code-only", code_only);
  print("annotated code-only",
        iree_status_annotate(iree_status_from_code(IREE_STATUS_UNKNOWN),
                             iree_make_cstring_view("why")));

  print("allocated", fail_inner());
  print("annotated", fail_outer(42));
  print("annotated plain", fail_plain());
  print("formatted",
        iree_status_allocate_f(IREE_STATUS_INVALID_ARGUMENT, "f.c", 3,
                               "%s=%d (%.2f)", "x", 7, 1.5));
  print("no location", iree_status_allocate(
                           IREE_STATUS_INTERNAL, NULL, 0,
                           iree_make_cstring_view("nowhere")));
  print("joined", iree_status_join(fail_inner(),
                                   iree_status_from_code(IREE_STATUS_ABORTED)));
  print("unnamed code", iree_status_from_code(25));

  // Formatting into a buffer: the length first, then the text.
  iree_status_t status = fail_outer(7);
  iree_host_size_t length = 0;
  iree_status_format(status, 0, NULL, &length);
  char buffer[256];
  iree_status_format(status, sizeof(buffer), buffer, &length);
  fprintf(stdout, "format %zu: %s\n", (size_t)length, buffer);
  char truncated[8];
  iree_status_format(status, sizeof(truncated), truncated, &length);
  fprintf(stdout, "truncated: %s\n", truncated);

  char* text = NULL;
  iree_allocator_t allocator = iree_allocator_system();
  iree_host_size_t text_length = 0;
  if (iree_status_to_string(status, &allocator, &text, &text_length)) {
    fprintf(stdout, "to_string %zu: %s\n", (size_t)text_length, text);
    iree_allocator_free(allocator, text);
  }

  iree_status_source_location_t location = iree_status_source_location(status);
  iree_string_view_t message = iree_status_message(status);
  fprintf(stdout, "location %s:%u message %.*s\n", location.file,
          location.line, (int)message.size, message.data);
  fprintf(stdout, "consumed %d\n", (int)iree_status_consume_code(status));

  iree_status_t cloned_from = fail_inner();
  iree_status_t clone = iree_status_clone(cloned_from);
  iree_status_ignore(cloned_from);
  print("clone", clone);
  fprintf(stdout, "code string %s\n", iree_status_code_string(IREE_STATUS_DEADLINE_EXCEEDED));
  fflush(stdout);
  return 0;
}
