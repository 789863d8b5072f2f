public import Foundation
import ZIPFoundation

extension ReadAlongBook {
    /// Writes the book to `url` with the MP3 at `audio`: beside the target under a hidden name,
    /// renamed when whole (a stopped export leaves nothing).
    public func write(to url: URL, audio: URL) throws {
        let temporary = URL(fileURLWithPath: AtomicFile.temporaryPath(for: url.path))
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            for (path, text) in files() {
                let data = Data(text.utf8)
                // The mimetype first and stored, as EPUB readers look for it at a fixed offset.
                try archive.addEntry(
                    with: path, type: .file, uncompressedSize: Int64(data.count),
                    compressionMethod: path == "mimetype" ? .none : .deflate
                ) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            // MP3 does not shrink: stored, read in pieces rather than held whole.
            let handle = try FileHandle(forReadingFrom: audio)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            try archive.addEntry(with: Self.audioPath, type: .file, uncompressedSize: Int64(size), compressionMethod: .none) { position, count in
                try handle.seek(toOffset: UInt64(position))
                return try handle.read(upToCount: count) ?? Data()
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw AudioError.fileFailed(path: url.path, reason: "the EPUB could not be written: \(error)")
        }
        do { try AtomicFile.commit(temporary.path, to: url.path) } catch {
            throw AudioError.fileFailed(path: url.path, reason: error.reason)
        }
    }
}
