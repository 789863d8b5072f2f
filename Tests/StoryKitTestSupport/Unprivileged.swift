public import Foundation

/// A user that file permissions apply to, for tests of read-only files and folders. CI runs as
/// root, which ignores permission bits: there the program runs as `nobody` through runuser; an
/// ordinary user runs it as itself.
public enum Unprivileged {
    static let runuser = "/usr/sbin/runuser"
    public static var isRoot: Bool { geteuid() == 0 }

    /// Why such a run cannot be made here (root without runuser), or nil.
    public static var unavailable: String? {
        isRoot && !FileManager.default.isExecutableFile(atPath: runuser)
            ? "running as root without \(runuser): no way to run storyreader as a user file permissions apply to" : nil
    }

    public static var available: Bool { unavailable == nil }

    /// The user's ids: `nobody`'s as root, else the current user's.
    public static var ids: (uid: uid_t, gid: gid_t) {
        guard isRoot else { return (geteuid(), getegid()) }
        guard let entry = getpwnam("nobody") else { return (65534, 65534) }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// The program to run and the arguments before storyreader's own.
    static var command: (URL, [String]) {
        isRoot ? (URL(fileURLWithPath: runuser), ["-u", "nobody", "--", TestPaths.binary.path]) : (TestPaths.binary, [])
    }

    /// Gives `path` (and, with `recursive`, all inside it) to the user.
    public static func own(_ path: String, recursive: Bool = true) {
        guard isRoot else { return }
        let (uid, gid) = ids
        chown(path, uid, gid)
        guard recursive, let inside = FileManager.default.enumerator(atPath: path) else { return }
        for case let name as String in inside { chown(path + "/" + name, uid, gid) }
    }

    /// Makes `path` one the user cannot write: root's (mode 0644) as root, read-only otherwise.
    public static func makeUnwritable(_ path: String, mode: mode_t = 0o644) {
        if isRoot {
            chown(path, 0, 0)
            chmod(path, mode)
        } else {
            chmod(path, mode & ~0o222)
        }
    }
}

extension Unprivileged {
    /// Makes `path` one the user cannot read: root's with mode 0600 as root, mode 000 otherwise.
    public static func makeUnreadable(_ path: String) {
        if isRoot {
            chown(path, 0, 0)
            chmod(path, 0o600)
        } else {
            chmod(path, 0)
        }
    }
}
