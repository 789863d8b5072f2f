import CFFmpeg
import Foundation

/// Decodes a clip of a recording — MP3, AAC in MP4/M4A, Ogg Opus or Vorbis, WAV — to the speech
/// sink's format (22050 Hz, mono, signed 16-bit), optionally at another tempo with the pitch kept.
///
/// FFmpeg's libraries (Debian's libavformat, libavcodec, libswresample, libavfilter): one
/// dependency demuxes and decodes every format a read-along book uses, resamples to the sink's
/// rate, and its `atempo` filter stretches time without the chipmunk voice. The alternative
/// (libmpg123 + libfdk/faad + libopusfile + libvorbisfile + a resampler + libsoundtouch) is six
/// libraries with six APIs for the same job.
///
/// A clip is `[begin, end)` in milliseconds of its file; `end` nil is the file's end. The decoder
/// seeks to a little before `begin` and trims by the decoded frames' own timestamps, so a clip
/// starts at its sample whatever the seek landed on.
public enum AudioClipDecoder {
    /// The largest clip decoded at once (one sentence or one paragraph of a family's recording):
    /// 30 minutes. More is refused, never held in memory.
    public static let longestClipMilliseconds = 30 * 60 * 1000
    /// The tempo range (1 is the recording's own pace).
    public static let tempoRange = 0.5...2.0

    /// The length of the recording at `path` (inside `folder`, see `RecordingInput`) in
    /// milliseconds, as its container says; nil when it cannot be read or does not say.
    public static func durationMilliseconds(path: String, folder: String? = nil) -> Int? {
        guard missing == nil, let input = try? RecordingInput(path: path, folder: folder, deadline: probeDeadline) else { return nil }
        let context = input.context
        guard avformat_find_stream_info(context, nil) >= 0, !input.expired, context.pointee.duration > 0 else { return nil }
        let milliseconds = Int(context.pointee.duration / 1000)  // AV_TIME_BASE is microseconds
        return milliseconds <= input.longestMilliseconds ? milliseconds : nil
    }

    /// The most any clip is given to be read (a 30-minute clip decodes in a few seconds).
    public static let clipDeadline = Duration.seconds(30)
    /// The most reading a recording's length may take (it reads the first packets, or the last).
    static let probeDeadline = Duration.seconds(5)

    /// FFmpeg's libraries, opened the first time a recording is needed (CFFmpeg's loader): nil
    /// once they are open, else the loader's reason. Once open, they are quiet: FFmpeg writes its
    /// own notes to standard error ("Estimating duration from bitrate"), unsanitized and
    /// untranslated, and every failure is said as a `RecordingProblem` instead.
    private static let missing: String? = {
        var why = [CChar](repeating: 0, count: 512)
        guard cffmpeg_load(&why, UInt(why.count)) == 0 else {
            return String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        av_log_set_level(AV_LOG_QUIET)
        return nil
    }()

    /// Throws, naming the file, when FFmpeg's libraries cannot be opened.
    private static func requireLibraries(for name: String) throws(RecordingProblem) {
        guard let missing else { return }
        throw RecordingProblem(
            N_(
                "{file}: playing a recording needs FFmpeg's libraries, which cannot be opened ({reason}): install them (on Debian: sudo apt install libavformat59 libavfilter8)"
            ),
            ["file": name, "reason": missing])
    }

    /// Decodes `path`'s `[beginMs, endMs)` at `tempo`. `path` must be inside `folder` (nil: the
    /// folder it is in) and is read as `RecordingInput` reads, within `deadline`; `stop` ends it
    /// early (an error).
    public static func decode(
        path: String, folder: String? = nil, beginMs: Int, endMs: Int?, tempo: Double = 1,
        deadline: Duration = clipDeadline, stop: RecordingStop? = nil
    ) throws(RecordingProblem) -> [Int16] {
        let name = (path as NSString).lastPathComponent
        try requireLibraries(for: name)
        if let endMs, endMs <= beginMs { throw RecordingProblem(N_("{file}: the clip ends before it begins"), ["file": name]) }
        if let endMs, endMs - beginMs > longestClipMilliseconds {
            throw RecordingProblem(N_("{file}: a clip longer than 30 minutes"), ["file": name])
        }
        let input = try RecordingInput(path: path, folder: folder, deadline: deadline, stop: stop)
        let context = input.context
        guard avformat_find_stream_info(context, nil) >= 0 else {
            throw input.expired ? input.tooLong : RecordingProblem(N_("{file}: not a recording FFmpeg can read"), ["file": name])
        }
        var codec: UnsafePointer<AVCodec>?
        let streamIndex = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard streamIndex >= 0, let codec, let stream = context.pointee.streams[Int(streamIndex)] else {
            throw RecordingProblem(N_("{file}: it holds no sound"), ["file": name])
        }
        guard RecordingFormat.codecs.contains(codec.pointee.id) else {
            throw RecordingProblem(N_("{file}: its sound is not in a codec a book may hold"), ["file": name])
        }
        // What it says it plays, and where the clip starts, within what a file of its size can hold.
        let longest = input.longestMilliseconds
        if context.pointee.duration > 0 && context.pointee.duration / 1000 > longest || beginMs > longest { throw input.bomb }
        var decoder = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&decoder) }
        guard let decoder, avcodec_parameters_to_context(decoder, stream.pointee.codecpar) >= 0 else {
            throw RecordingProblem(N_("{file}: its sound cannot be decoded"), ["file": name])
        }
        // The packets' time base: without it the decoder cannot move a frame's timestamp past the
        // samples it leaves out at the start (an MP3's delay), and the first frame kept the time
        // of the packet it came from, 529 samples early.
        decoder.pointee.pkt_timebase = stream.pointee.time_base
        guard avcodec_open2(decoder, codec, nil) >= 0 else {
            throw RecordingProblem(N_("{file}: its sound cannot be decoded"), ["file": name])
        }
        let timeBase = stream.pointee.time_base
        // A gapless MP3 (a LAME tag saying the encoder's delay: LAME's own files, FFmpeg's, the
        // export's) starts later than 0: FFmpeg leaves out the delay (1,105 samples at 22050 Hz)
        // and stamps the first sample it gives 50 ms. That sample is the recording's first, time
        // 0 of its clips, as a reading app plays it. (Ogg Opus and AAC start at 0 here, their
        // priming already left out.)
        let origin = stream.pointee.start_time > 0 && stream.pointee.start_time != Int64.min ? stream.pointee.start_time : 0
        let seconds = { (timestamp: Int64) -> Double in Double(timestamp - origin) * Double(timeBase.num) / Double(timeBase.den) }
        if beginMs > 0 {
            // Half a second early: an MP3 frame needs the one before it to decode cleanly.
            let target = origin + Int64(Double(max(0, beginMs - 500)) / 1000 * Double(timeBase.den) / Double(timeBase.num))
            if av_seek_frame(context, streamIndex, target, AVSEEK_FLAG_BACKWARD) >= 0 { avcodec_flush_buffers(decoder) }
        }

        var resampler: OpaquePointer?
        var mono = AVChannelLayout()
        av_channel_layout_default(&mono, 1)
        guard
            swr_alloc_set_opts2(
                &resampler, &mono, AV_SAMPLE_FMT_S16, Int32(SpeechAudioFormat.sampleRate),
                &decoder.pointee.ch_layout, decoder.pointee.sample_fmt, decoder.pointee.sample_rate, 0, nil) >= 0,
            let resampler, swr_init(resampler) >= 0
        else {
            throw RecordingProblem(N_("{file}: its sound cannot be decoded"), ["file": name])
        }
        defer {
            var pointer: OpaquePointer? = resampler
            swr_free(&pointer)
        }

        let rate = Double(SpeechAudioFormat.sampleRate)
        let beginSample = Int((Double(beginMs) / 1000 * rate).rounded())
        let endSample = endMs.map { Int((Double($0) / 1000 * rate).rounded()) }
        var out: [Int16] = []
        /// The output sample number of the next resampled sample (from the file's start).
        var position: Int?
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        guard let packet, let frame else { throw RecordingProblem(N_("{file}: its sound cannot be decoded"), ["file": name]) }
        var scratch = [Int16](repeating: 0, count: 8192)
        let longestSample = Int((Double(longest) / 1000 * rate).rounded(.up))
        var bomb = false
        var decodedAny = false

        /// Resamples the frame (nil: flushes) and keeps what falls inside the clip; false once past its end.
        func take(_ frame: UnsafeMutablePointer<AVFrame>?) -> Bool {
            if let frame, position == nil {
                let stamp = frame.pointee.best_effort_timestamp
                position = stamp == Int64.min ? 0 : Int((seconds(stamp) * rate).rounded())
            }
            let inCount = frame.map { Int($0.pointee.nb_samples) } ?? 0
            let room = Int(swr_get_out_samples(resampler, Int32(inCount))) + 32
            if scratch.count < room { scratch = [Int16](repeating: 0, count: room) }
            let produced = scratch.withUnsafeMutableBytes { raw -> Int32 in
                var target: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                if let frame, let planes = frame.pointee.extended_data {
                    let source = UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                    return swr_convert(resampler, &target, Int32(room), source, frame.pointee.nb_samples)
                }
                return swr_convert(resampler, &target, Int32(room), nil, 0)
            }
            guard produced > 0 else { return true }
            let start = position ?? 0
            position = start + Int(produced)
            if start + Int(produced) > longestSample {
                // It plays longer than it said, and than its size can hold.
                bomb = true
                return false
            }
            let lower = max(beginSample, start)
            let upper = min(endSample ?? Int.max, start + Int(produced))
            if upper > lower {
                out.append(contentsOf: scratch[(lower - start)..<(upper - start)])
                if out.count > longestClipMilliseconds / 1000 * SpeechAudioFormat.sampleRate { return false }
            }
            return endSample.map { start + Int(produced) < $0 } ?? true
        }

        var going = true
        while going, av_read_frame(context, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            guard avcodec_send_packet(decoder, packet) >= 0 else { continue }
            while going, avcodec_receive_frame(decoder, frame) >= 0 {
                decodedAny = true
                going = take(frame)
                av_frame_unref(frame)
            }
        }
        if going {
            avcodec_send_packet(decoder, nil)
            while going, avcodec_receive_frame(decoder, frame) >= 0 {
                decodedAny = true
                going = take(frame)
                av_frame_unref(frame)
            }
            if going { _ = take(nil) }
        }
        if input.expired { throw input.tooLong }
        if bomb { throw input.bomb }
        guard decodedAny else { throw RecordingProblem(N_("{file}: its sound cannot be decoded"), ["file": name]) }
        guard !out.isEmpty else { throw RecordingProblem(N_("{file}: the clip is past the end of the recording"), ["file": name]) }
        let clamped = min(max(tempo, tempoRange.lowerBound), tempoRange.upperBound)
        return abs(clamped - 1) < 0.001 ? out : try stretch(out, tempo: clamped, name: name)
    }

    /// `samples` at `tempo` with their pitch kept: FFmpeg's `atempo` (WSOLA).
    public static func stretch(_ samples: [Int16], tempo: Double, name: String = "") throws(RecordingProblem) -> [Int16] {
        try requireLibraries(for: name)
        let failure = RecordingProblem(N_("{file}: its tempo cannot be changed"), ["file": name])
        var graph = avfilter_graph_alloc()
        defer { avfilter_graph_free(&graph) }
        guard let graph, let bufferFilter = avfilter_get_by_name("abuffer"), let tempoFilter = avfilter_get_by_name("atempo"),
            let sinkFilter = avfilter_get_by_name("abuffersink")
        else { throw failure }
        var source: UnsafeMutablePointer<AVFilterContext>?
        var stretcher: UnsafeMutablePointer<AVFilterContext>?
        var sink: UnsafeMutablePointer<AVFilterContext>?
        let sourceArguments = "sample_rate=\(SpeechAudioFormat.sampleRate):sample_fmt=s16:channel_layout=mono:time_base=1/\(SpeechAudioFormat.sampleRate)"
        guard avfilter_graph_create_filter(&source, bufferFilter, "in", sourceArguments, nil, graph) >= 0,
            avfilter_graph_create_filter(&stretcher, tempoFilter, "tempo", String(format: "tempo=%.4f", tempo), nil, graph) >= 0,
            avfilter_graph_create_filter(&sink, sinkFilter, "out", nil, nil, graph) >= 0,
            let source, let stretcher, let sink,
            avfilter_link(source, 0, stretcher, 0) >= 0, avfilter_link(stretcher, 0, sink, 0) >= 0,
            avfilter_graph_config(graph, nil) >= 0
        else { throw failure }
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let frame else { throw failure }
        var out: [Int16] = []
        out.reserveCapacity(Int(Double(samples.count) / tempo) + 4096)

        func drain() {
            while av_buffersink_get_frame(sink, frame) >= 0 {
                let count = Int(frame.pointee.nb_samples)
                if let data = frame.pointee.data.0 {
                    data.withMemoryRebound(to: Int16.self, capacity: count) { out.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
                }
                av_frame_unref(frame)
            }
        }

        let chunk = 4096
        var index = 0
        while index < samples.count {
            let count = min(chunk, samples.count - index)
            guard let input = av_frame_alloc() else { throw failure }
            var owned: UnsafeMutablePointer<AVFrame>? = input
            defer { av_frame_free(&owned) }
            input.pointee.format = AV_SAMPLE_FMT_S16.rawValue
            input.pointee.sample_rate = Int32(SpeechAudioFormat.sampleRate)
            av_channel_layout_default(&input.pointee.ch_layout, 1)
            input.pointee.nb_samples = Int32(count)
            input.pointee.pts = Int64(index)
            guard av_frame_get_buffer(input, 0) >= 0, let data = input.pointee.data.0 else { throw failure }
            samples.withUnsafeBufferPointer { buffer in
                data.withMemoryRebound(to: Int16.self, capacity: count) { $0.update(from: buffer.baseAddress! + index, count: count) }
            }
            guard av_buffersrc_add_frame(source, input) >= 0 else { throw failure }
            drain()
            index += count
        }
        guard av_buffersrc_add_frame(source, nil) >= 0 else { throw failure }
        drain()
        return out
    }
}
