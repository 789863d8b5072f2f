#ifndef COPUSENC_SHIM_H
#define COPUSENC_SHIM_H
/* libopus's settings go through a variadic ctl call, which Swift cannot make: these helpers make
   the few the export needs. (opusenc.h brings opus.h; the module links libopusenc, which brings
   libopus.) */
#include <opusenc.h>

/* For the export's encoders (OpusShares.swift): they feed libopus speech already at 16 kHz and take
   its packets, without libopusenc's resampler and Ogg pages. */
static inline int copus_set_bitrate(OpusEncoder *encoder, opus_int32 bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}
static inline int copus_set_complexity(OpusEncoder *encoder, int complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
static inline opus_int32 copus_lookahead(OpusEncoder *encoder) {
    opus_int32 lookahead = 0;
    opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(&lookahead));
    return lookahead;
}
static inline int copus_reset(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}
/* The export's resampler's inner loop (SpeechResampler.swift), 22050 Hz to 16 kHz: output k,
   for k from `start` to `end`, from the 24 input samples around input time k * 441 / 320 weighed
   by that phase's taps; `input[0]` is input sample `origin`. In C, with four running sums, so
   that the compiler keeps them in one vector register (Swift's SIMD types did not: a tenth of the
   export's time); the input sample and the phase step on by 441 / 320 = 1 + 121 / 320 each output. */
static inline void copus_resample(const float *filter, const float *input, long origin, long start, long end, float *output) {
    long index = start * 441 / 320, phase = start * 441 % 320;
    for (long k = start; k < end; k++) {
        const float *x = input + (index - 11 - origin);
        const float *h = filter + phase * 24;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int tap = 0; tap < 24; tap += 4) {
            s0 += h[tap] * x[tap];
            s1 += h[tap + 1] * x[tap + 1];
            s2 += h[tap + 2] * x[tap + 2];
            s3 += h[tap + 3] * x[tap + 3];
        }
        output[k - start] = (s0 + s2) + (s1 + s3);
        index += 1;
        phase += 121;
        if (phase >= 320) {
            phase -= 320;
            index += 1;
        }
    }
}
/* Speech samples as the resampler's floats of -1...1, in one pass the compiler vectorizes. */
static inline void copus_samples_to_float(const short *samples, long count, float *output) {
    for (long i = 0; i < count; i++) output[i] = (float)samples[i] * (1.0f / 32768.0f);
}
#endif
