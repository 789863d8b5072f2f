#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The forwarders below take the names of FFmpeg's functions. Hidden, they are not exported
 * from the program, so the FFmpeg libraries, once open, never bind to them instead of to each
 * other. */
#pragma GCC visibility push(hidden)
#include "CFFmpeg.h"

/* The sonames of the major versions the headers describe (Debian 12: libavformat.so.59, …),
 * in the order they depend on one another. */
static const char *const libraries[] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR),
};
#define LIBRARY_COUNT (sizeof libraries / sizeof libraries[0])
static void *handles[LIBRARY_COUNT];
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_libraries(void) {
    for (unsigned i = 0; i < LIBRARY_COUNT; i++) {
        handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *reason = dlerror();
            snprintf(failure, sizeof failure, "%s", reason ? reason : libraries[i]);
            return;
        }
    }
}

int cffmpeg_load(char *why, unsigned long size) {
    pthread_once(&once, open_libraries);
    if (failure[0] == 0) return 0;
    if (why && size) snprintf(why, size, "%s", failure);
    return -1;
}

/* A function of the open libraries. Called before cffmpeg_load said 0 is a bug in the program. */
static void *symbol(const char *name) {
    pthread_once(&once, open_libraries);
    for (unsigned i = 0; i < LIBRARY_COUNT; i++) {
        void *found = handles[i] ? dlsym(handles[i], name) : NULL;
        if (found) return found;
    }
    fprintf(stderr, "storyreader: FFmpeg's %s was called but is not there (%s)\n", name, failure[0] ? failure : "not found");
    abort();
}

/* Each forwarder finds its function once; a race between two threads finds the same one. */
#define FORWARD(result, name, parameters, arguments)                                          \
    result name parameters {                                                                  \
        static result(*resolved) parameters;                                                  \
        result(*function) parameters = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);          \
        if (!function) {                                                                      \
            function = (result(*) parameters)symbol(#name);                                   \
            __atomic_store_n(&resolved, function, __ATOMIC_RELEASE);                          \
        }                                                                                     \
        return function arguments;                                                            \
    }

/* The same for a function of no result (C has no `return` of a void expression). */
#define FORWARD_VOID(name, parameters, arguments)                                             \
    void name parameters {                                                                    \
        static void(*resolved) parameters;                                                    \
        void(*function) parameters = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);            \
        if (!function) {                                                                      \
            function = (void(*) parameters)symbol(#name);                                     \
            __atomic_store_n(&resolved, function, __ATOMIC_RELEASE);                          \
        }                                                                                     \
        function arguments;                                                                   \
    }

FORWARD_VOID(av_log_set_level, (int level), (level))
FORWARD(AVFrame *, av_frame_alloc, (void), ())
FORWARD_VOID(av_frame_free, (AVFrame **frame), (frame))
FORWARD_VOID(av_frame_unref, (AVFrame *frame), (frame))
FORWARD(int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align))
FORWARD(AVPacket *, av_packet_alloc, (void), ())
FORWARD_VOID(av_packet_free, (AVPacket **packet), (packet))
FORWARD_VOID(av_packet_unref, (AVPacket *packet), (packet))
FORWARD_VOID(av_channel_layout_default, (AVChannelLayout *layout, int channels), (layout, channels))

FORWARD(int, swr_alloc_set_opts2,
        (struct SwrContext **context, AVChannelLayout *out_layout, enum AVSampleFormat out_format, int out_rate,
         AVChannelLayout *in_layout, enum AVSampleFormat in_format, int in_rate, int log_offset, void *log_context),
        (context, out_layout, out_format, out_rate, in_layout, in_format, in_rate, log_offset, log_context))
FORWARD(int, swr_init, (struct SwrContext *context), (context))
FORWARD_VOID(swr_free, (struct SwrContext **context), (context))
FORWARD(int, swr_get_out_samples, (struct SwrContext *context, int in_samples), (context, in_samples))
FORWARD(int, swr_convert, (struct SwrContext *context, uint8_t **out, int out_count, const uint8_t **in, int in_count),
        (context, out, out_count, in, in_count))

FORWARD(AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
FORWARD_VOID(avcodec_free_context, (AVCodecContext **context), (context))
FORWARD(int, avcodec_parameters_to_context, (AVCodecContext *context, const AVCodecParameters *parameters), (context, parameters))
FORWARD(int, avcodec_open2, (AVCodecContext *context, const AVCodec *codec, AVDictionary **options), (context, codec, options))
FORWARD_VOID(avcodec_flush_buffers, (AVCodecContext *context), (context))
FORWARD(int, avcodec_send_packet, (AVCodecContext *context, const AVPacket *packet), (context, packet))
FORWARD(int, avcodec_receive_frame, (AVCodecContext *context, AVFrame *frame), (context, frame))

FORWARD(int, avformat_open_input, (AVFormatContext **context, const char *url, const AVInputFormat *format, AVDictionary **options),
        (context, url, format, options))
FORWARD(AVFormatContext *, avformat_alloc_context, (void), ())
FORWARD_VOID(avformat_free_context, (AVFormatContext *context), (context))
FORWARD(const AVInputFormat *, av_find_input_format, (const char *name), (name))
FORWARD(AVIOContext *, avio_alloc_context,
        (unsigned char *buffer, int buffer_size, int write_flag, void *opaque, int (*read_packet)(void *, uint8_t *, int),
         int (*write_packet)(void *, uint8_t *, int), int64_t (*seek)(void *, int64_t, int)),
        (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))
FORWARD_VOID(avio_context_free, (AVIOContext **context), (context))
FORWARD(void *, av_malloc, (size_t size), (size))
FORWARD_VOID(av_free, (void *pointer), (pointer))
FORWARD(char *, av_strdup, (const char *text), (text))
FORWARD(int, avformat_find_stream_info, (AVFormatContext *context, AVDictionary **options), (context, options))
FORWARD_VOID(avformat_close_input, (AVFormatContext **context), (context))
FORWARD(int, av_find_best_stream,
        (AVFormatContext *context, enum AVMediaType type, int wanted, int related, const AVCodec **decoder, int flags),
        (context, type, wanted, related, decoder, flags))
FORWARD(int, av_seek_frame, (AVFormatContext *context, int stream, int64_t timestamp, int flags), (context, stream, timestamp, flags))
FORWARD(int, av_read_frame, (AVFormatContext *context, AVPacket *packet), (context, packet))

FORWARD(AVFilterGraph *, avfilter_graph_alloc, (void), ())
FORWARD_VOID(avfilter_graph_free, (AVFilterGraph **graph), (graph))
FORWARD(int, avfilter_graph_config, (AVFilterGraph *graph, void *log_context), (graph, log_context))
FORWARD(const AVFilter *, avfilter_get_by_name, (const char *name), (name))
FORWARD(int, avfilter_graph_create_filter,
        (AVFilterContext **filter, const AVFilter *kind, const char *name, const char *arguments, void *opaque, AVFilterGraph *graph),
        (filter, kind, name, arguments, opaque, graph))
FORWARD(int, avfilter_link, (AVFilterContext *source, unsigned source_pad, AVFilterContext *destination, unsigned destination_pad),
        (source, source_pad, destination, destination_pad))
FORWARD(int, av_buffersrc_add_frame, (AVFilterContext *context, AVFrame *frame), (context, frame))
FORWARD(int, av_buffersink_get_frame, (AVFilterContext *context, AVFrame *frame), (context, frame))

#pragma GCC visibility pop
