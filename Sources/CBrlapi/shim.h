#ifndef CBRLAPI_SHIM_H
#define CBRLAPI_SHIM_H
// The reentrant brlapi__ calls on a handle we allocate: no library-global connection state.
#define BRLAPI_NO_SINGLE_SESSION 1
#define BRLAPI_NO_DEPRECATED 1
#include <stddef.h>
#include <brlapi.h>

// Key codes are built by function-like macros Swift cannot import: named here.
static const brlapi_keyCode_t cbrlapi_key_type_mask = BRLAPI_KEY_TYPE_MASK;
static const brlapi_keyCode_t cbrlapi_key_type_cmd = BRLAPI_KEY_TYPE_CMD;
static const brlapi_keyCode_t cbrlapi_key_type_sym = BRLAPI_KEY_TYPE_SYM;
static const brlapi_keyCode_t cbrlapi_key_code_mask = BRLAPI_KEY_CODE_MASK;
static const brlapi_keyCode_t cbrlapi_key_cmd_blk_mask = BRLAPI_KEY_CMD_BLK_MASK;
static const brlapi_keyCode_t cbrlapi_key_cmd_arg_mask = BRLAPI_KEY_CMD_ARG_MASK;
static const brlapi_keyCode_t cbrlapi_key_cmd_route = BRLAPI_KEY_TYPE_CMD | BRLAPI_KEY_CMD_ROUTE;
static const brlapi_keyCode_t cbrlapi_key_cmd_fwinlt = BRLAPI_KEY_TYPE_CMD | BRLAPI_KEY_CMD_FWINLT;
static const brlapi_keyCode_t cbrlapi_key_cmd_fwinrt = BRLAPI_KEY_TYPE_CMD | BRLAPI_KEY_CMD_FWINRT;
static const brlapi_keyCode_t cbrlapi_key_cmd_lnup = BRLAPI_KEY_TYPE_CMD | BRLAPI_KEY_CMD_LNUP;
static const brlapi_keyCode_t cbrlapi_key_cmd_lndn = BRLAPI_KEY_TYPE_CMD | BRLAPI_KEY_CMD_LNDN;
static const brlapi_keyCode_t cbrlapi_key_sym_unicode = BRLAPI_KEY_SYM_UNICODE;

// The default exception handler prints and abort()s: a display going away must never end the
// program. The next call fails instead, and the connection is opened again.
static void cbrlapi_ignore_exception(brlapi_handle_t *handle, int error, brlapi_packetType_t type,
                                     const void *packet, size_t size) {
    (void)handle; (void)error; (void)type; (void)packet; (void)size;
}
static inline void cbrlapi_quiet_exceptions(brlapi_handle_t *handle) {
    brlapi__setExceptionHandler(handle, cbrlapi_ignore_exception);
}

// brlapi_error is a macro over a thread-local location.
static inline const char *cbrlapi_last_error(void) {
    return brlapi_strerror(brlapi_error_location());
}
// What kind of failure it was: BrlAPI's error number, and the C library's under it.
static inline int cbrlapi_last_errno(void) { return brlapi_error_location()->brlerrno; }
static inline int cbrlapi_last_libcerrno(void) { return brlapi_error_location()->libcerrno; }
static const int cbrlapi_error_authentication = BRLAPI_ERROR_AUTHENTICATION;
static const int cbrlapi_error_connrefused = BRLAPI_ERROR_CONNREFUSED;
static const int cbrlapi_error_libcerr = BRLAPI_ERROR_LIBCERR;
// The key file a client reads when BRLAPI_AUTH names none (/etc/brlapi.key).
static const char *const cbrlapi_default_key_file = BRLAPI_ETCDIR "/" BRLAPI_AUTHKEYFILE;
#endif
