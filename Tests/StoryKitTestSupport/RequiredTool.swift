public import Foundation
public import Testing

/// A program a test drives (espeak-ng, tmux, ffprobe, …). `make test` installs every one
/// (`scripts/setup.sh --test`); a test that finds one missing FAILS, naming the command that
/// installs it, rather than passing or skipping quietly (issue 31).
public enum RequiredTool {
    /// `/usr/bin/NAME` (or the first `NAME` on PATH), or nil with a failure recorded that says
    /// what installs it. `package` is the Debian package holding it.
    public static func find(
        _ name: String, package: String, for what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> URL? {
        findAll([(name, package)], for: what, sourceLocation: sourceLocation)?.first
    }

    /// Every one of `tools` (each with its Debian package), in order, or nil with one failure
    /// naming all those missing.
    public static func findAll(
        _ tools: [(name: String, package: String)], for what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [URL]? {
        var found: [URL] = []
        var absent: [(name: String, package: String)] = []
        for tool in tools {
            if let url = locate(tool.name) { found.append(url) } else { absent.append(tool) }
        }
        guard absent.isEmpty else {
            Issue.record(Comment(rawValue: missing(absent, for: what)), sourceLocation: sourceLocation)
            return nil
        }
        return found
    }

    /// `/usr/bin/NAME` first (what setup.sh installs), then PATH.
    public static func locate(_ name: String) -> URL? {
        let system = URL(fileURLWithPath: "/usr/bin").appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: system.path) ? system : ExternalProcess.find(name)
    }

    /// What a failure says of missing tools: what needs them and the command that installs them.
    public static func missing(_ tools: [(name: String, package: String)], for what: String) -> String {
        let names = tools.map(\.name).joined(separator: ", ")
        let packages = Set(tools.map(\.package)).sorted().joined(separator: " ")
        return "\(what) needs \(names), not installed: run 'make test' (scripts/setup.sh --test installs "
            + "every tool the tests use) or 'sudo apt-get install \(packages)'"
    }
}
