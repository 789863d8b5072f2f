#ifndef COPUSENC_SHIM_H
#define COPUSENC_SHIM_H
/* libopusenc writes Ogg Opus files. Its settings go through a variadic ctl call, which Swift cannot
   make: these helpers make the few it needs. */
#include <opusenc.h>

static inline int copusenc_set_bitrate(OggOpusEnc *encoder, opus_int32 bitrate) {
    return ope_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}
/* Speech: the encoder is told what it is given. */
static inline int copusenc_set_voice(OggOpusEnc *encoder) {
    return ope_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
}
/* Encoder effort, 0–10: speech at 24 kbit/s sounds the same at 3 and costs a fraction of 10. */
static inline int copusenc_set_complexity(OggOpusEnc *encoder, int complexity) {
    return ope_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
/* Files, not calls: no one waits for a frame, and 60 ms ones cost less (Cat: 10.5 s → 8.6 s). */
static inline int copusenc_set_frame_duration_60ms(OggOpusEnc *encoder) {
    return ope_encoder_ctl(encoder, OPUS_SET_EXPERT_FRAME_DURATION(OPUS_FRAMESIZE_60_MS));
}
#endif
