#ifndef CPOCKETSPHINX_SHIM_H
#define CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/logmath.h>

/* cmd_ln_init is variadic (Swift cannot call it): the decoder's configuration is made here.
   Logging goes nowhere (err_set_logfp(NULL), -logfn /dev/null) and no -rawlogdir is given, so
   the decoder never writes the audio it hears (the child's voice stays in memory). */
static inline ps_decoder_t *cps_decoder_new(const char *hmm, const char *dict) {
    err_set_logfp(NULL);
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE,
                                   "-hmm", hmm,
                                   "-dict", dict,
                                   "-logfn", "/dev/null",
                                   /* Digital silence (zeros) otherwise gives log(0) features,
                                      and the decoder hears words in it. */
                                   "-dither", "yes",
                                   /* Every frame kept: with the voice-activity filter on, a
                                      silence's frames are dropped and the hypothesis's times
                                      stop matching the audio's clock (the coach's help waits
                                      on it). */
                                   "-remove_silence", "no",
                                   NULL);
    if (config == NULL) return NULL;
    ps_decoder_t *decoder = ps_init(config);
    cmd_ln_free_r(config);
    return decoder;
}
#endif
