import Foundation

/// `transform(0)` … `transform(count - 1)` on every core, in index order: what the library's walk,
/// its parsing and its cache's decoding share. A run of `chunk` indices an iteration, not one (one
/// index costs less than the queue's hand-off); `count` of one chunk or less runs on this thread.
///
/// `transform` runs on several threads at once: it must only read what it captures (a folder's
/// descriptor, the files' list, the cache's bytes), which is why it need not be `@Sendable`.
func parallelMap<T>(count: Int, chunk: Int, _ transform: (Int) -> T) -> [T] {
    guard count > chunk else { return (0..<count).map(transform) }
    var results = [T?](repeating: nil, count: count)
    results.withUnsafeMutableBufferPointer { buffer in
        withoutActuallyEscaping(transform) { transform in
            let shared = ParallelWork(results: buffer, transform: transform)
            DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { block in
                for index in (block * chunk)..<min(count, (block + 1) * chunk) { shared.results[index] = shared.transform(index) }
            }
        }
    }
    return results.map { $0! }
}

/// Unchecked: each iteration writes only its own indices of `results`, which are read after every
/// iteration has returned; `transform` only reads (see `parallelMap`).
private struct ParallelWork<T>: @unchecked Sendable {
    let results: UnsafeMutableBufferPointer<T?>
    let transform: (Int) -> T
}
