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
