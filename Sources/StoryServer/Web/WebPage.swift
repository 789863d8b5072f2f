#if Server
    import Foundation
    import StoryKit

    /// Server-rendered HTML: no script, one stylesheet. Every text from the log or a form is escaped
    /// (and sanitized as for a terminal) before it is written.
    struct WebPage {
        var messages: MessageCatalog
        var session: WebSession?

        /// Text safe in HTML content and in a double-quoted attribute (every attribute here is one).
        static func escape(_ text: String) -> String { XMLText.escaped(Sanitizer.sanitizeLine(text)) }

        func tr(_ message: String, _ values: [String: String] = [:]) -> String {
            Self.escape(messages.tr(message, values))
        }

        /// The hidden field every form of a signed-in page carries.
        var csrfField: String {
            "<input type=\"hidden\" name=\"csrf\" value=\"\(Self.escape(session?.csrf ?? ""))\">"
        }

        /// A whole page: skip link, banner, navigation when signed in, the main region with its one h1.
        func document(title: String, _ main: String) -> String {
            var navigation = ""
            if let session {
                navigation = """
                    <nav aria-label="\(tr("Site"))"><ul>
                    <li><a href="/">\(tr("Children"))</a></li>
                    \(session.role == .librarian ? "<li><a href=\"/kiosks\">\(tr("Kiosks"))</a></li>" : "")
                    <li><a href="/privacy">\(tr("Privacy"))</a></li>
                    <li><form method="post" action="/sign-out">\(csrfField)<button type="submit">\(tr("Sign out"))</button></form></li>
                    </ul></nav>
                    <p class="who">\(tr("Signed in as {name} ({role}) at site {site}.", ["name": session.name, "role": session.role == .librarian ? messages.tr("librarian") : messages.tr("parent"), "site": session.siteName]))</p>
                    """
            }
            return """
                <!doctype html>
                <html lang="\(Self.escape(messages.language))">
                <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                <title>\(Self.escape(title)) · Magical Stories</title><link rel="stylesheet" href="/style.css"></head>
                <body><a class="skip" href="#main">\(tr("Skip to content"))</a>
                <header><p class="brand">Magical Stories</p>\(navigation)</header>
                <main id="main" tabindex="-1"><h1>\(Self.escape(title))</h1>
                \(main)
                </main></body></html>
                """
        }

        /// A labelled text field with its error (if any) tied to it by `aria-describedby`; a number
        /// field says its range (`range`).
        func field(
            id: String, label: String, value: String, error: String? = nil, type: String = "text", autocomplete: String? = nil,
            range: ClosedRange<Int>? = nil
        ) -> String {
            let complete = autocomplete.map { " autocomplete=\"\($0)\"" } ?? ""
            let bounds = range.map { " min=\"\($0.lowerBound)\" max=\"\($0.upperBound)\" step=\"1\"" } ?? ""
            return labelled(id: id, label: label, error: error) { attributes in
                "<input id=\"\(id)\" name=\"\(id)\" type=\"\(type)\" value=\"\(Self.escape(value))\"\(bounds)\(complete)\(attributes)>"
            }
        }

        /// A labelled picker of `choices` (value and shown text) with `value` selected; a value that
        /// is none of them (set elsewhere) is offered too, so that saving keeps it.
        func select(id: String, label: String, value: String, choices: [(value: String, text: String)], error: String? = nil) -> String {
            var all = choices
            if !all.contains(where: { $0.value == value }) { all.insert((value, value), at: 0) }
            return labelled(id: id, label: label, error: error) { attributes in
                "<select id=\"\(id)\" name=\"\(id)\"\(attributes)>"
                    + all.map {
                        "<option value=\"\(Self.escape($0.value))\"\($0.value == value ? " selected" : "")>\(Self.escape($0.text))</option>"
                    }.joined() + "</select>"
            }
        }

        /// A field's label, control and error (if any), the error tied to the control by `aria-describedby`.
        private func labelled(id: String, label: String, error: String?, _ control: (String) -> String) -> String {
            let described = error == nil ? "" : " aria-describedby=\"\(id)-error\" aria-invalid=\"true\""
            let problem = error.map { "<p class=\"error\" id=\"\(id)-error\">\(tr("Error:")) \(Self.escape($0))</p>" } ?? ""
            return "<div class=\"field\"><label for=\"\(id)\">\(Self.escape(label))</label>\n\(control(described))\(problem)</div>"
        }

        /// "3 days ago", "just now".
        func ago(_ date: Date, now: Date) -> String {
            let seconds = max(0, Int(now.timeIntervalSince(date)))
            if seconds < 60 { return messages.tr("just now") }
            if seconds < 3600 { return messages.trn("{count} minute ago", "{count} minutes ago", seconds / 60) }
            if seconds < 86400 { return messages.trn("{count} hour ago", "{count} hours ago", seconds / 3600) }
            return messages.trn("{count} day ago", "{count} days ago", seconds / 86400)
        }

        /// A date and time as the log keeps it (UTC), unambiguous in every language.
        static func stamp(_ date: Date) -> String {
            date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().dateSeparator(.dash)) + " "
                + date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).time(includingFractionalSeconds: false).timeSeparator(.colon)).prefix(5)
                + " UTC"
        }

        /// The one stylesheet: readable at 320 px, visible focus, forced colours and reduced motion kept.
        static let stylesheet = """
            *{box-sizing:border-box}
            body{font-family:system-ui,sans-serif;font-size:1.125rem;line-height:1.5;margin:0;color:#1a1a1a;background:#fff}
            header,main{padding:0 1rem;max-width:48rem;margin:0 auto}
            .brand{font-weight:bold;margin:.5rem 0}
            nav ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.5rem 1rem}
            nav form{display:inline}
            a{color:#0645ad;text-decoration:underline}
            a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,main:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px;box-shadow:0 0 0 5px #ffd400}
            .skip{position:absolute;left:-999px}
            .skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
            .field{margin:0 0 1rem}
            label{display:block;font-weight:bold}
            input,select{font:inherit;padding:.4rem;border:2px solid #595959;border-radius:4px;width:100%;max-width:24rem}
            button{font:inherit;padding:.4rem 1rem;border:2px solid #1a1a1a;border-radius:4px;background:#f0f0f0;color:#1a1a1a;cursor:pointer}
            .error{color:#b00020;font-weight:bold;margin:.25rem 0}
            .notice{border:2px solid #1a1a1a;padding:.5rem}
            table{border-collapse:collapse;width:100%}
            th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #767676;overflow-wrap:anywhere}
            ul.entries li{margin:.25rem 0;overflow-wrap:anywhere}
            ul.entries form{display:inline}
            @media (forced-colors:active){a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid CanvasText}.error{border-left:4px solid CanvasText;padding-left:.25rem}}
            @media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}
            """
    }
#endif
