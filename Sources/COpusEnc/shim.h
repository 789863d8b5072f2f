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
   by that phase's taps; `input[0]` is input sample `origin`. In C, with eight running sums, so
   that the compiler keeps it in vector registers (Swift's SIMD types did not: a tenth of the
   export's time). */
static inline void copus_resample(const float *filter, const float *input, long origin, long start, long end, float *output) {
    for (long k = start; k < end; k++) {
        long position = k * 441;
        const float *x = input + (position / 320 - 11 - origin);
        const float *h = filter + (position % 320) * 24;
        float sums[8] = {0};
        for (int tap = 0; tap < 24; tap += 8)
            for (int lane = 0; lane < 8; lane++) sums[lane] += h[tap + lane] * x[tap + lane];
        output[k - start] = ((sums[0] + sums[4]) + (sums[1] + sums[5])) + ((sums[2] + sums[6]) + (sums[3] + sums[7]));
    }
}
#endif
