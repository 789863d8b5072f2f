import Foundation

/// An ALSA configuration written by a test: a `file` PCM named `storytest` that writes every sample
/// it is given (raw, 16-bit) to `rawPath` and plays nothing (slave `null`), so the device code runs
/// on machines without a sound card.
public struct ALSATestDevice: Sendable {
    public static let name = "storytest"
    public let rawPath: String
    /// `ALSA_CONFIG_PATH` for the process that plays (the system's configuration, then ours).
    public let environment: [String: String]

    public init(in folder: TemporaryFolder, rawName: String = "device.raw") throws {
        rawPath = folder.url.appendingPathComponent(rawName).path
        let config = try folder.write("asound.conf", "pcm.\(Self.name) {\n type file\n slave.pcm \"null\"\n file \"\(rawPath)\"\n format \"raw\"\n}\n")
        let system = "/usr/share/alsa/alsa.conf"
        environment = ["ALSA_CONFIG_PATH": FileManager.default.fileExists(atPath: system) ? "\(system):\(config.path)" : config.path]
    }

    /// What reached the device, as 16-bit samples.
    public func samples() throws -> [Int16] {
        WAVSamples.samples(of: try Data(contentsOf: URL(fileURLWithPath: rawPath)))
    }
}

/// An ALSA configuration written by a test: a capture PCM named `storymic` that gives the samples
/// of `rawPath` (raw 16-bit, 16 kHz mono), then silence (slave `null`, which does not wait: a
/// microphone as fast as the program reads it), so the capture code runs without a sound card.
public struct ALSATestMicrophone: Sendable {
    public static let name = "storymic"
    /// `ALSA_CONFIG_PATH` for the process that listens (the system's configuration, then ours).
    public let environment: [String: String]

    public init(in folder: TemporaryFolder, rawPath: String) throws {
        let config = try folder.write(
            "asound-mic.conf",
            "pcm.\(Self.name) {\n type file\n slave.pcm \"null\"\n file \"/dev/null\"\n infile \"\(rawPath)\"\n format \"raw\"\n}\n")
        let system = "/usr/share/alsa/alsa.conf"
        environment = ["ALSA_CONFIG_PATH": FileManager.default.fileExists(atPath: system) ? "\(system):\(config.path)" : config.path]
    }
}
