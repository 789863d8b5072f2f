#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA reports errors through a variadic handler, which Swift cannot write: these helpers let the
   audio sink silence alsa-lib's own stderr messages and give one clear notice instead. */
static void calsa_silent_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void calsa_silence_errors(void) { snd_lib_error_set_handler(calsa_silent_error_handler); }
#endif
