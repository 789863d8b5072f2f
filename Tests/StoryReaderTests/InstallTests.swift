import Foundation
import StoryKitTestSupport
import Testing

/// `make install` and `make uninstall`, into a temporary DESTDIR, with the debug binary the tests
/// already built (`BIN=`), and the installed program used the way a person on the machine uses it:
/// a clean environment, its manual page, its completions in bash, zsh and fish, the kiosk's systemd unit.
@Suite(.serialized) struct InstallTests {
    /// An installed tree under a fresh DESTDIR, with PREFIX=/usr.
    struct Installation {
        let destination: TemporaryFolder
        let home: TemporaryFolder
        var root: URL { destination.url.appendingPathComponent("usr") }
        var binary: URL { root.appendingPathComponent("bin/storyreader") }
        var manifest: URL { root.appendingPathComponent("share/storyreader/install-manifest") }

        init() throws {
            destination = try TemporaryFolder("destdir")
            home = try TemporaryFolder("home")
            let result = try make("install")
            #expect(result.status == 0, "make install: \(result.standardError)")
        }

        func make(_ target: String) throws -> ProcessResult {
            try ExternalProcess.run(
                try #require(ExternalProcess.find("make")),
                ["-s", target, "DESTDIR=\(destination.path)", "PREFIX=/usr", "BIN=\(TestPaths.binary.path)"],
                environment: ProcessInfo.processInfo.environment)
        }

        /// No STORYREADER_* variable, no configuration: only what a fresh login has.
        var cleanEnvironment: [String: String] {
            ["PATH": root.appendingPathComponent("bin").path + ":/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8", "COLUMNS": "200"]
        }

        func run(_ arguments: [String]) throws -> ProcessResult {
            try ExternalProcess.run(binary, arguments, environment: cleanEnvironment, currentDirectory: home.url)
        }

        func files() throws -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: destination.path)
            return (enumerator?.allObjects as? [String] ?? []).sorted()
        }

        func remove() {
            destination.remove()
            home.remove()
        }
    }

    @Test func theInstalledProgramFindsItsTwelveStoriesWithNoVariableSet() throws {
        let installed = try Installation()
        defer { installed.remove() }
        let list = try installed.run(["list", "--json"])
        #expect(list.status == 0)
        #expect(list.standardError == "")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        #expect(stories.count == 12)
        // From the installed copy, not from the repository the binary was built in.
        let storiesFolder = installed.root.appendingPathComponent("share/storyreader/stories").path
        for story in stories {
            #expect((story["path"] as? String)?.hasPrefix(storiesFolder + "/") == true, "\(story["path"] ?? "")")
        }
        // Pictures come along: a story with pictures shows one.
        let show = try installed.run(["show", "lighthouse", "--json"])
        #expect(show.status == 0, "\(show.standardError)")
        #expect(FileManager.default.fileExists(atPath: storiesFolder + "/pictures/lighthouse-cat.art"))
        // The catalogs come along too: a parent whose LANG is French gets French from the installed copy.
        for language in ["es", "fr", "de"] {
            #expect(FileManager.default.fileExists(atPath: installed.root.appendingPathComponent("share/storyreader/po/\(language).po").path))
        }
        let none = try installed.run(["list", "--lang", "fr", "--stories", installed.home.url.path])
        #expect(none.standardError.contains("aucune histoire trouvée"), "\(none.standardError)")
    }

    @Test func theManualPageRendersAndNamesEveryCommand() throws {
        let installed = try Installation()
        defer { installed.remove() }
        let page = installed.root.appendingPathComponent("share/man/man1/storyreader.1")
        let man = try ExternalProcess.run(
            try #require(ExternalProcess.find("man")), ["--warnings", "-l", page.path],
            environment: installed.cleanEnvironment.merging(["MANWIDTH": "120", "MANPAGER": "cat"]) { $1 })
        #expect(man.status == 0)
        #expect(man.standardError == "", "roff warnings: \(man.standardError)")
        #expect(man.standardOutput.contains("storyreader - Reads children's stories aloud"))

        // Every command the program shows in --help, found from the program itself.
        let dump = try installed.run(["--experimental-dump-help"])
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var paths: [String] = []
        func collect(_ command: [String: Any], path: [String]) {
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where sub["shouldDisplay"] as? Bool != false {
                let name = sub["commandName"] as? String ?? "?"
                if name == "help" { continue }
                paths.append((path + [name]).joined(separator: " "))
                collect(sub, path: path + [name])
            }
        }
        collect(try #require(tool["command"] as? [String: Any]), path: ["storyreader"])
        #expect(paths.contains("storyreader kiosk") && paths.contains("storyreader profile add"))
        for path in paths {
            #expect(man.standardOutput.contains("\n   \(path)\n"), "the manual page has no section for '\(path)'")
        }
        // Options as --help spells them, hyphens and all.
        #expect(man.standardOutput.contains("--idle-timeout <seconds>"))
        // A machine left in the C locale draws ASCII stand-ins, without a warning.
        let plain = try ExternalProcess.run(
            try #require(ExternalProcess.find("man")), ["--warnings", "-l", page.path],
            environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "120", "MANPAGER": "cat", "LANG": "C"])
        #expect(plain.status == 0)
        #expect(plain.standardError == "", "roff warnings in the C locale: \(plain.standardError)")
        #expect(plain.standardOutput.contains("Words per minute, 80-450."))
    }

    @Test func bashCompletesStoryIdsTitlesAndSubcommands() throws {
        let installed = try Installation()
        defer { installed.remove() }
        let script = installed.root.appendingPathComponent("share/bash-completion/completions/storyreader").path
        func complete(_ words: [String]) throws -> [String] {
            // What bash does on Tab: COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT, then the function.
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(script)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                _storyreader storyreader "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try ExternalProcess.run(
                try #require(ExternalProcess.find("bash")), ["-c", program],
                environment: installed.cleanEnvironment)
            #expect(result.status == 0)
            #expect(result.standardError == "")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["storyreader", "show", "the-li"]) == ["the-library-ghost", "the-lighthouse-cat"])
        #expect(try complete(["storyreader", "read", "pip"]) == ["pip-and-the-puddle"])
        // A title, for a child's parent who remembers the name and not the id.
        #expect(try complete(["storyreader", "read", "Grandma"]) == ["Grandma’s Umbrella Boat"])
        #expect(try complete(["storyreader", "pro"]) == ["profile"])
        // Profile names, from the database in the installed program's default data folder.
        #expect(try complete(["storyreader", "history", "--profile", ""]) == [], "no database yet, and none made")
        #expect(!FileManager.default.fileExists(atPath: installed.home.url.appendingPathComponent(".local/share/storyreader/storyreader.sqlite").path))
        let added = try installed.run(["profile", "add", "--name", "Maya", "--age", "5"])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try complete(["storyreader", "history", "--profile", "M"]) == ["Maya"])
        #expect(try complete(["storyreader", "profile", "show", ""]).contains("Maya"))
    }

    /// zsh and fish, typed at for real (in tmux): their scripts ask the program as bash's does.
    @Test(arguments: ["zsh", "fish"]) func zshAndFishCompleteStoryIdsOnTab(shell: String) throws {
        let installed = try Installation()
        defer { installed.remove() }
        let executable = try #require(ExternalProcess.find(shell, path: "/usr/bin:/bin"), "\(shell) is needed (make test installs it)")
        let home = installed.home
        switch shell {
        case "zsh":
            try home.write(
                ".zshrc",
                """
                fpath=(\(installed.root.path)/share/zsh/site-functions $fpath)
                autoload -U compinit && compinit -u
                PS1='ready> '
                """)
        default:
            // fish reads vendor_completions.d from its XDG_DATA_DIRS, as on an installed system.
            try home.write(
                ".config/fish/config.fish",
                """
                set -g fish_greeting
                function fish_prompt; echo 'ready> '; end
                """)
        }
        let environment = installed.cleanEnvironment.merging([
            "TERM": "xterm-256color", "ZDOTDIR": home.path, "XDG_DATA_DIRS": installed.root.appendingPathComponent("share").path + ":/usr/share",
        ]) { $1 }
        let assignments = environment.map { "'\($0.key)=\($0.value)'" }.joined(separator: " ")
        var tmux = TmuxSession()
        tmux.columns = 120
        try tmux.start(script: "cd '\(home.path)' && exec env -i \(assignments) \(executable.path)")
        defer { tmux.kill() }
        // capture-pane drops the space after the prompt.
        try tmux.waitFor("ready>")
        try tmux.send("-l", "storyreader show the-li")
        try tmux.send("Tab")
        let screen = try tmux.waitFor("the-lighthouse-cat")
        #expect(screen.contains("the-library-ghost"))
    }

    @Test func installingTwiceIsSafeAndUninstallRemovesExactlyWhatWasInstalled() throws {
        let installed = try Installation()
        defer { installed.remove() }
        let first = try installed.files()
        let manifest = try String(contentsOf: installed.manifest, encoding: .utf8)
        #expect(manifest.contains("file bin/storyreader\n"))
        #expect(manifest.contains("file share/man/man1/storyreader.1\n"))
        #expect(manifest.contains("file share/storyreader/po/fr.po\n"))

        let again = try installed.make("install")
        #expect(again.status == 0, "\(again.standardError)")
        let second = try installed.files()
        #expect(second == first, "after installing again, added: \(Set(second).subtracting(first).sorted()), gone: \(Set(first).subtracting(second).sorted())")
        #expect(try String(contentsOf: installed.manifest, encoding: .utf8) == manifest)
        #expect(try installed.run(["list"]).standardOutput.split(separator: "\n").count == 12)

        let uninstall = try installed.make("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.standardError)")
        #expect(try installed.files() == [], "uninstall left files behind")
        // Uninstalling what is not there is not an error.
        #expect(try installed.make("uninstall").status == 0)

        // Someone else's file in a folder the install uses stays, and so does its folder.
        try installed.destination.write("usr/bin/other-program", "#!/bin/sh\n")
        #expect(try installed.make("install").status == 0)
        #expect(try installed.make("uninstall").status == 0)
        #expect(try installed.files() == ["usr", "usr/bin", "usr/bin/other-program"])
    }

    @Test func theKioskUnitAndAutologinDropInPassSystemdAnalyzeVerify() throws {
        let installed = try Installation()
        defer { installed.remove() }
        let analyze = try #require(
            ExternalProcess.find("systemd-analyze", path: "/usr/bin:/bin"),
            "systemd-analyze is needed (Debian package systemd; make test installs it)")
        let units = try TemporaryFolder("units")
        defer { units.remove() }
        // The installed copy names the program where PREFIX put it.
        let unit = try String(
            contentsOf: installed.root.appendingPathComponent("share/doc/storyreader/contrib/systemd/storyreader-kiosk.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/storyreader kiosk\n"))
        #expect(unit.contains("Restart=always\n") && unit.contains("User=storyreader\n") && unit.contains("TTYPath=/dev/tty1\n"))
        // verify checks that ExecStart's program exists: point it at the copy in DESTDIR (the only change).
        try units.write("storyreader-kiosk.service", unit.replacingOccurrences(of: "/usr/bin/storyreader", with: installed.binary.path))
        var environment = ProcessInfo.processInfo.environment
        // Documentation=man:storyreader(1) is checked against the installed manual page.
        environment["MANPATH"] = installed.root.appendingPathComponent("share/man").path
        let service = try ExternalProcess.run(
            analyze, ["verify", units.url.appendingPathComponent("storyreader-kiosk.service").path], environment: environment)
        #expect(service.status == 0)
        #expect(service.standardError == "", "\(service.standardError)")

        // The drop-in, over Debian's own getty@.service.
        try FileManager.default.copyItem(atPath: "/lib/systemd/system/getty@.service", toPath: units.url.appendingPathComponent("getty@tty1.service").path)
        try units.write(
            "getty@tty1.service.d/autologin.conf",
            try String(contentsOf: TestPaths.repository.appendingPathComponent("contrib/systemd/getty@tty1.service.d/autologin.conf"), encoding: .utf8))
        environment["SYSTEMD_UNIT_PATH"] = units.path + ":"
        // Debian's getty@.service names manual pages that are not ours to check.
        let getty = try ExternalProcess.run(analyze, ["verify", "--man=no", "getty@tty1.service"], environment: environment)
        #expect(getty.status == 0)
        #expect(getty.standardError == "", "\(getty.standardError)")
    }
}
