import Foundation

/// Every catalog the program has, loaded once at start: the interface switches language per
/// child (the REPL) without reading a file again, and never while a screen is being built.
public struct InterfaceLanguages: Sendable, Hashable {
    private let catalogs: [String: MessageCatalog]

    /// English only (the source strings): a run without catalogs, and most tests.
    public static let englishOnly = InterfaceLanguages(catalogs: [:])

    public init(catalogs: [MessageCatalog]) {
        var byLanguage: [String: MessageCatalog] = [:]
        for catalog in catalogs { byLanguage[catalog.language] = catalog }
        self.catalogs = byLanguage
    }

    private init(catalogs: [String: MessageCatalog]) { self.catalogs = catalogs }

    /// The catalog of `language`; English (the source strings) when there is none.
    public func catalog(_ language: String) -> MessageCatalog {
        catalogs[language] ?? .english
    }

    /// The languages with a catalog, English first.
    public var languages: [String] { ["en"] + catalogs.keys.filter { $0 != "en" }.sorted() }

    /// One problem with a catalog folder: a file that could not be read or parsed.
    public struct LoadProblem: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The `.po` files of `folder` (`es.po`, `fr.po`, `de.po`, …). A file that does not parse
    /// is left out and reported; its language falls back to English.
    ///
    /// - Parameter only: one language's code: read its file alone (a command's messages are in one
    ///   language; reading every catalog costs tens of milliseconds at each start).
    public static func load(folder: String, only: String? = nil) -> (languages: InterfaceLanguages, problems: [LoadProblem]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".po") && (only == nil || $0 == only! + ".po") }.sorted()
        var catalogs: [MessageCatalog] = []
        var problems: [LoadProblem] = []
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            do {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                catalogs.append(try MessageCatalog(POFile(parsing: text)))
            } catch let error as POFile.ParseError {
                problems.append(LoadProblem(path: path, reason: error.description))
            } catch let error as PluralRule.ParseError {
                problems.append(LoadProblem(path: path, reason: error.description))
            } catch {
                problems.append(LoadProblem(path: path, reason: "cannot be read"))
            }
        }
        return (InterfaceLanguages(catalogs: catalogs), problems)
    }

    /// The interface language a profile gets when it names none: its voice's language when the
    /// interface speaks it ("es+f3" → es), else the system's.
    public static func defaultLanguage(voice: String?, system: String) -> String {
        voice.flatMap(InterfaceLanguage.code(of:)) ?? system
    }
}

/// Marks an English message for the catalogs without translating it where it is written (a
/// table built before any language is known); translate it where it is used with
/// `MessageCatalog.text(_:)`. gettext's own name for it.
// swift-format-ignore: AlwaysUseLowerCamelCase
@inline(__always) public func N_(_ message: String) -> String { message }

extension MessageCatalog: Hashable {
    /// Two catalogs are the same when they are the same language (a run loads each file once).
    public static func == (left: MessageCatalog, right: MessageCatalog) -> Bool { left.language == right.language }
    public func hash(into hasher: inout Hasher) { hasher.combine(language) }

    /// `message` in this language: the one function every interface string goes through (the
    /// catalog test finds each English message by it).
    public func tr(_ message: String, _ values: [String: String] = [:]) -> String { text(message, values) }

    /// The plural form of `singular`/`plural` for `count` in this language.
    public func trn(_ singular: String, _ plural: String, _ count: Int, _ values: [String: String] = [:]) -> String {
        text(singular, plural: plural, count: count, values)
    }
}
