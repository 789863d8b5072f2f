import CBrlapi
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why the braille display cannot be used, in kinds the program can say in the interface's
/// language with what to do (BrlAPI's own words are English and say nothing of the fix).
public enum BrailleFailure: Sendable, Hashable {
    /// BRLTTY runs but refused this program's key, read from `keyFile`.
    case authentication(keyFile: String)
    /// The key file `path` cannot be read: it is missing (`missing`), or this user may not read it.
    case keyFileUnreadable(path: String, missing: Bool)
    /// No BRLTTY answers (it is not running, or listens elsewhere).
    case notRunning
    /// BRLTTY runs with no braille display plugged in (its stand-in reports one cell).
    case noDisplay
    /// Anything else, in BrlAPI's words.
    case other(String)

    /// The failure of the `brlapi__openConnection` that just failed on this thread. `auth` is the
    /// authorization asked for (`BRLAPI_AUTH`'s syntax; nil: BrlAPI's default key file).
    static func ofConnection(auth: String?) -> BrailleFailure {
        let error = cbrlapi_last_errno()
        if error == cbrlapi_error_authentication { return refused(auth: auth) }
        if error == cbrlapi_error_connrefused || (error == cbrlapi_error_libcerr && cbrlapi_last_libcerrno() == ECONNREFUSED) {
            return .notRunning
        }
        return .other(String(cString: cbrlapi_last_error()))
    }

    /// BRLTTY refused the key: an unreadable key file is the usual reason, and its fix differs.
    static func refused(auth: String?) -> BrailleFailure {
        guard let path = keyFile(auth: auth) else { return .authentication(keyFile: auth ?? "") }
        if access(path, R_OK) != 0 { return .keyFileUnreadable(path: path, missing: errno == ENOENT) }
        return .authentication(keyFile: path)
    }

    /// The key file an authorization names: `keyfile:PATH` (or a bare path) among its `+`-joined
    /// methods; nil and an empty one mean BrlAPI's default; `none` and `polkit` name none.
    static func keyFile(auth: String?) -> String? {
        guard let auth, !auth.isEmpty else { return String(cString: cbrlapi_default_key_file) }
        for method in auth.split(separator: "+").map(String.init) {
            if method.hasPrefix("keyfile:") {
                let path = String(method.dropFirst("keyfile:".count))
                return path.isEmpty ? String(cString: cbrlapi_default_key_file) : path
            }
            if method.hasPrefix("/") { return method }
        }
        return nil
    }
}
