#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#pragma GCC visibility push(hidden)
#include "CFFmpeg.h"

/* A recording read the only way a book's audio may be read (issue 43): FFmpeg probes content,
 * not names, so a `book.mp3` that was an HLS playlist made it open files by absolute path, and
 * block for ever on a live playlist's missing segment; an ffconcat script naming itself recursed.
 * Here FFmpeg gets no name at all: it reads a file descriptor the program opened itself, through
 * callbacks, with the one demuxer the program chose from the file's first bytes, no way to open
 * another file (io_open refuses), and a deadline and a stop flag checked at every read. */

struct cffmpeg_input {
    int fd;
    int64_t position;
    int64_t size;
    /* CLOCK_MONOTONIC nanoseconds; 0: none. */
    int64_t deadline;
    const int *stop;
    int expired;
    AVIOContext *io;
};

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* True (and remembered) once the deadline passed or the caller asked to stop. */
static int over(struct cffmpeg_input *input) {
    if (input->expired) return 1;
    if ((input->stop && __atomic_load_n(input->stop, __ATOMIC_ACQUIRE)) || (input->deadline && now_ns() > input->deadline)) {
        input->expired = 1;
    }
    return input->expired;
}

static int interrupt(void *opaque) { return over(opaque); }

static int read_packet(void *opaque, uint8_t *buffer, int size) {
    struct cffmpeg_input *input = opaque;
    if (over(input)) return AVERROR_EXIT;
    ssize_t got;
    do {
        got = pread(input->fd, buffer, (size_t)size, input->position);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return AVERROR(errno);
    if (got == 0) return AVERROR_EOF;
    input->position += got;
    return (int)got;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    struct cffmpeg_input *input = opaque;
    if (over(input)) return AVERROR_EXIT;
    int64_t target;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return input->size;
    case SEEK_SET: target = offset; break;
    case SEEK_CUR: target = input->position + offset; break;
    case SEEK_END: target = input->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (target < 0) return AVERROR(EINVAL);
    input->position = target;
    return target;
}

/* A demuxer may never open another file or address: a recording is one file. */
static int refuse_open(struct AVFormatContext *context, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)context, (void)pb, (void)url, (void)flags, (void)options;
    return AVERROR(EPERM);
}

int cffmpeg_open_recording(AVFormatContext **out, int fd, const char *format_name, int64_t milliseconds, const int *stop) {
    *out = NULL;
    struct stat status;
    if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) return AVERROR(EINVAL);
    const AVInputFormat *format = av_find_input_format(format_name);
    if (!format) return AVERROR_DEMUXER_NOT_FOUND;
    struct cffmpeg_input *input = calloc(1, sizeof *input);
    if (!input) return AVERROR(ENOMEM);
    input->fd = fd;
    input->size = status.st_size;
    input->deadline = milliseconds > 0 ? now_ns() + milliseconds * 1000000 : 0;
    input->stop = stop;
    const int buffer_size = 64 * 1024;
    unsigned char *buffer = av_malloc(buffer_size);
    AVFormatContext *context = avformat_alloc_context();
    if (buffer) input->io = avio_alloc_context(buffer, buffer_size, 0, input, read_packet, NULL, seek);
    if (!buffer || !context || !input->io) {
        if (input->io) avio_context_free(&input->io);
        else av_free(buffer);
        avformat_free_context(context);
        free(input);
        return AVERROR(ENOMEM);
    }
    context->pb = input->io;
    context->flags |= AVFMT_FLAG_CUSTOM_IO;
    context->opaque = input;
    context->interrupt_callback.callback = interrupt;
    context->interrupt_callback.opaque = input;
    context->io_open = refuse_open;
    /* Also handed to any demuxer nested inside (none of these five nests one). */
    context->format_whitelist = av_strdup("mp3,mov,ogg,wav,flac");
    context->protocol_whitelist = av_strdup("none");
    int result = avformat_open_input(&context, NULL, format, NULL);
    if (result < 0) {
        /* avformat_open_input freed the context on failure; the I/O is ours. */
        if (input->expired) result = AVERROR_EXIT;
        av_free(input->io->buffer);
        avio_context_free(&input->io);
        free(input);
        return result;
    }
    *out = context;
    return 0;
}

int cffmpeg_open_beneath(const char *folder, const char *relative) {
    int directory = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) return -errno;
    /* Read-only, never a terminal, and never waiting: a FIFO named book.mp3 would block open(). */
    const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    struct open_how how = {.flags = flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, directory, relative, &how, sizeof how);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
        /* A kernel before 5.6 (or a sandbox refusing the call): the caller checked the path after
         * its links; the last part may not be a link swapped in since. */
        fd = openat(directory, relative, flags | O_NOFOLLOW);
    }
    int error = errno;
    close(directory);
    return fd < 0 ? -error : fd;
}

int cffmpeg_recording_expired(AVFormatContext *context) {
    return context && context->opaque ? ((struct cffmpeg_input *)context->opaque)->expired : 0;
}

void cffmpeg_close_recording(AVFormatContext **context) {
    if (!context || !*context) return;
    struct cffmpeg_input *input = (*context)->opaque;
    avformat_close_input(context);
    if (input) {
        /* The buffer may have been replaced by FFmpeg: free the one the context holds now. */
        av_free(input->io->buffer);
        avio_context_free(&input->io);
        free(input);
    }
}

#pragma GCC visibility pop
