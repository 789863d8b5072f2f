import Foundation
import StoryKitTestSupport
import Testing

/// The Debian package (`make deb`, scripts/deb.sh), built here from the debug binary the tests
/// already built: the release build takes minutes on a small machine, and the package is the same
/// but for the binary (`make deb` wraps the release one, with the Swift runtime linked in). Its
/// name and control fields, lintian's verdict, an install with dpkg into an empty root, the
/// installed program run from its /usr/bin, and a removal that leaves nothing behind.
@Suite(.serialized) struct DebianPackageTests {
    static let script = TestPaths.repository.appendingPathComponent("scripts/deb.sh")

    static func run(_ tool: URL, _ arguments: [String]) throws -> ProcessResult {
        try ExternalProcess.run(tool, arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// `dpkg` with the administrative folder of an empty root (its own status file), so nothing
    /// of this machine's own packages is read or changed.
    static func dpkg(_ root: URL, _ arguments: [String]) throws -> ProcessResult {
        let dpkg = try #require(RequiredTool.locate("dpkg"))
        // Installing for another root as a normal user: files cannot be given to root, said and allowed.
        let notRoot = getuid() == 0 ? [] : ["--force-not-root"]
        return try run(dpkg, ["--root=\(root.path)", "--log=\(root.path)/dpkg.log"] + notRoot + arguments)
    }

    /// Regular files and links below `folder`, relative to it.
    static func files(below folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true }
            .map { String($0.path.dropFirst(folder.path.count + 1)) }.sorted()
    }

    @Test func thePackageInstallsIntoAnEmptyRootRunsAndIsRemovedCleanly() throws {
        guard
            let tools = RequiredTool.findAll(
                [("dpkg-deb", "dpkg"), ("dpkg-shlibdeps", "dpkg-dev"), ("strip", "binutils"), ("lintian", "lintian")],
                for: "the Debian package test")
        else { return }
        let (dpkgDeb, lintian) = (tools[0], tools[3])
        let folder = try TemporaryFolder("deb")
        defer { folder.remove() }

        // Built, and named after the program's own version and this machine's architecture.
        let built = try Self.run(Self.script, ["--unpackaged-swift-runtime", TestPaths.binary.path, folder.path])
        try #require(built.status == 0, "scripts/deb.sh: \(built.standardError)")
        let deb = URL(fileURLWithPath: built.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        let version = try StoryReaderProcess.run(["--version"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let architecture = try Self.run(try #require(RequiredTool.locate("dpkg")), ["--print-architecture"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.lastPathComponent == "storyreader_\(version)_\(architecture).deb")

        // The control fields; Depends computed from the libraries the binary links.
        let info = try Self.run(dpkgDeb, ["--info", deb.path])
        #expect(info.status == 0, "\(info.standardError)")
        for line in ["Package: storyreader", "Version: \(version)", "Architecture: \(architecture)", "Section: education"] {
            #expect(info.standardOutput.contains("\n " + line + "\n"), "dpkg-deb --info lacks '\(line)': \(info.standardOutput)")
        }
        let depends = try Self.run(dpkgDeb, ["--field", deb.path, "Depends"]).standardOutput
        for package in ["libespeak-ng1", "espeak-ng-data", "libasound2", "libopusenc0", "libmp3lame0", "libhyphen0", "libsqlite3-0", "libc6"] {
            #expect(depends.contains(package), "Depends: \(depends)")
        }
        // FFmpeg's libraries are opened when a recording plays, not linked: named all the same.
        for library in ["libavutil", "libswresample", "libavcodec", "libavformat", "libavfilter"] {
            #expect(depends.contains(library), "Depends: \(depends)")
        }
        let contents = try Self.run(dpkgDeb, ["--contents", deb.path]).standardOutput
        #expect(!contents.contains("install-manifest"), "dpkg keeps the list of files, not the package")

        // lintian: no error (warnings and notes are printed for the record). The one error the
        // release package does not have is left out: this debug binary finds the toolchain's
        // shared Swift runtime through its RUNPATH (custom-library-search-path); `make deb`
        // links the runtime in and has no RUNPATH.
        let lint = try Self.run(lintian, ["--fail-on", "error", "--suppress-tags", "custom-library-search-path", deb.path])
        print("lintian on the test package:\n\(lint.standardOutput)\(lint.standardError)")
        #expect(lint.status == 0, "lintian: \(lint.standardOutput)\(lint.standardError)")
        #expect(!lint.standardOutput.split(separator: "\n").contains { $0.hasPrefix("E: ") }, "\(lint.standardOutput)")

        // Installed into an empty root: dpkg's own database there, nothing else (so its
        // dependencies are not there: allowed, the program runs with this machine's libraries).
        let root = folder.url.appendingPathComponent("root")
        for sub in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data().write(to: root.appendingPathComponent("var/lib/dpkg/status"))
        let install = try Self.dpkg(root, ["--force-depends", "--install", deb.path])
        #expect(install.status == 0, "dpkg --install: \(install.standardOutput)\(install.standardError)")
        #expect(try Self.dpkg(root, ["--status", "storyreader"]).standardOutput.contains("Status: install ok installed"))
        let installed = Set(Self.files(below: root.appendingPathComponent("usr")))
        for file in [
            "bin/storyreader", "lib/systemd/system/storyreader-kiosk.service", "share/man/man1/storyreader.1.gz",
            "share/bash-completion/completions/storyreader", "share/zsh/site-functions/_storyreader",
            "share/fish/vendor_completions.d/storyreader.fish", "share/storyreader/po/es.po", "share/storyreader/po/fr.po",
            "share/storyreader/po/de.po", "share/storyreader/stories/pip-and-the-puddle.md", "share/doc/storyreader/README.md",
            "share/doc/storyreader/kiosk.md", "share/doc/storyreader/copyright", "share/doc/storyreader/changelog.gz",
        ] {
            #expect(installed.contains(file), "/usr/\(file) is not installed")
        }
        #expect(!installed.contains { $0.hasPrefix("share/storyreader/Tests") || $0.contains("Fixtures") }, "test data is never shipped")
        let unit = try String(contentsOf: root.appendingPathComponent("usr/lib/systemd/system/storyreader-kiosk.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/storyreader kiosk"), "the unit starts the packaged program")

        // The installed program, from its /usr/bin, with a fresh login's environment: the
        // packaged stories, found beside it.
        let home = try TemporaryFolder("deb-home")
        defer { home.remove() }
        let program = root.appendingPathComponent("usr/bin/storyreader")
        let list = try ExternalProcess.run(
            program, ["list", "--json"],
            environment: [
                "PATH": root.appendingPathComponent("usr/bin").path + ":/usr/bin:/bin",
                "HOME": home.path, "LANG": "C.UTF-8",
            ],
            currentDirectory: home.url)
        #expect(list.status == 0, "\(list.standardError)")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        #expect(stories.count == 12)
        let storiesFolder = root.appendingPathComponent("usr/share/storyreader/stories").path
        #expect(stories.allSatisfy { ($0["path"] as? String)?.hasPrefix(storiesFolder + "/") == true }, "\(stories.map { $0["path"] ?? "" })")

        // Removed (purged): every file it installed is gone, and dpkg knows it no more.
        let purge = try Self.dpkg(root, ["--purge", "storyreader"])
        #expect(purge.status == 0, "dpkg --purge: \(purge.standardOutput)\(purge.standardError)")
        #expect(Self.files(below: root.appendingPathComponent("usr")) == [], "left behind after removal")
        #expect(!(try Self.dpkg(root, ["--status", "storyreader"]).standardOutput.contains("install ok installed")))
    }

    /// A binary that needs the toolchain's shared Swift runtime is not packaged for shipping: no
    /// Debian package provides that library, so the installed program could not start.
    @Test func aBinaryUsingTheToolchainsSwiftRuntimeIsRefused() throws {
        let ldd = try Self.run(try #require(RequiredTool.locate("ldd")), [TestPaths.binary.path]).standardOutput
        try #require(ldd.contains("libswiftCore.so"), "the debug binary links the shared Swift runtime")
        let folder = try TemporaryFolder("deb-refused")
        defer { folder.remove() }
        let refused = try Self.run(Self.script, [TestPaths.binary.path, folder.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("--static-swift-stdlib"), "\(refused.standardError)")
        #expect(Self.files(below: folder.url) == [], "nothing written")
    }
}
