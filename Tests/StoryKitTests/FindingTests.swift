import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Finding a story among hundreds (issue 30, part A): type-ahead in lists, one matching rule for
/// lookup and completion, Go on reading at hand after stopping, and read counts that were earned.
/// Time is an input (`Input.tick`): no test waits.
@Suite struct FindingTests {
    /// A library of hundreds (the repository's stories and Aesop's 284 fables), loaded once.
    static let library: Result<StoryCatalog, any Error> = Result {
        let folder = try TemporaryFolder("fables")
        try FableLibrary.write(into: folder.url)
        return StoryCatalog(library: StoryLibrary.load(folders: FableLibrary.folders(folder.url)))
    }

    func mia() throws -> Session {
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Mia", age: 6)])
        var session = Session(catalog: try Self.library.get(), snapshot: snapshot, profile: "Mia")
        _ = session.start()
        return session
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    /// Types `letters` as a person does, a fifth of a second apart, from `start`; what the last one said.
    @discardableResult
    func type(_ letters: String, _ session: inout Session, at start: TimeInterval = 100) -> [String] {
        var said: [String] = []
        for (index, letter) in letters.enumerated() {
            _ = session.handle(.tick(start + Double(index) * 0.2))
            said = spoken(session.handle(.key(.character(letter))))
        }
        return said
    }

    /// The stories with a word of their title beginning with `letters`, counted without the rule under test.
    func titles(withWordStarting letters: String) throws -> [String] {
        try Self.library.get().entries.map(\.title).filter { title in
            title.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix(letters) }
        }
    }

    func focusedTitle(_ session: Session) -> String? {
        session.focusedElement.map { $0.label.hasPrefix("Story: ") ? String($0.label.dropFirst("Story: ".count)) : $0.label }
    }

    // MARK: - Type-ahead

    @Test func typingFoxQuicklyFindsTheFoxStories() throws {
        var session = try mia()
        let said = type("fox", &session)
        let foxes = try titles(withWordStarting: "fox")
        #expect(foxes.count > 20, "Aesop has many fox fables")
        let title = try #require(focusedTitle(session))
        #expect(foxes.contains(title))
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("\(title), 1 of \(foxes.count) matches") == true, "\(said)")
    }

    @Test func theMatchesAreCountedAndTheFocusStaysOnAMatchAsLettersAreAdded() throws {
        var session = try mia()
        type("fox", &session)
        let first = session.state.focusedID
        // "fox an" is not typed (Space presses); a fourth letter narrows within the second.
        _ = session.handle(.tick(100.7))
        let narrowed = spoken(session.handle(.key(.character("e"))))
        let foxe = try titles(withWordStarting: "foxe")
        if foxe.isEmpty {
            #expect(narrowed == ["Nothing matches ‘foxe’."])
            #expect(session.state.focusedID == first)
        } else {
            #expect(foxe.contains(try #require(focusedTitle(session))))
        }
    }

    /// A letter that changes neither the item found nor the count says nothing: the answer being
    /// said goes on, rather than being cut off and started again (and captioned again) per letter.
    @Test func aLetterThatChangesNothingSaysNothingAgain() throws {
        var session = try mia()
        var answers: [[String]] = []
        for (index, letter) in "ligh".enumerated() {
            _ = session.handle(.tick(100 + Double(index) * 0.2))
            answers.append(spoken(session.handle(.key(.character(letter)))))
        }
        // "li" finds many, "lig" only the cat: said once, and "ligh" adds nothing to say.
        #expect(answers[1].count == 1 && answers[1][0].hasPrefix("The Lighthouse Cat, 1 of "), "\(answers)")
        #expect(answers[2] == ["The Lighthouse Cat, the only match, not read yet."], "\(answers)")
        #expect(answers[3].isEmpty, "\(answers)")
        #expect(focusedTitle(session) == "The Lighthouse Cat")
        // A letter that finds nothing still says so.
        _ = session.handle(.tick(100.8))
        #expect(spoken(session.handle(.key(.character("z")))).first?.hasPrefix("Nothing matches") == true)
    }

    /// The issue's figure: keys to find "The Fox and the Grapes" among hundreds of stories.
    @Test func theFoxAndTheGrapesTakesFourLettersInsteadOfFiftyLetterJumps() throws {
        let count = try Self.library.get().entries.count
        #expect(count > 284, "the repository's stories and the 284 fables")
        var before = try mia()
        var jumps = 0
        // Letter jumps (what there was before): `f`, `f`, … each a new search after a pause.
        while focusedTitle(before) != "The Fox and the Grapes", jumps < 400 {
            jumps += 1
            _ = before.handle(.tick(100 + Double(jumps) * 2))
            _ = before.handle(.key(.character("f")))
        }
        var after = try mia()
        let said = type("grap", &after)
        #expect(focusedTitle(after) == "The Fox and the Grapes")
        #expect(said.first?.hasPrefix("The Fox and the Grapes, ") == true)
        #expect(jumps > 4)
        print("figure: keys to find The Fox and the Grapes among \(count) stories: \(jumps) letter jumps with f; 4 typed ahead (grap)")
    }

    @Test func aPauseStartsANewSearch() throws {
        var session = try mia()
        type("fo", &session)
        let focused = session.state.focusedID
        // Over a second later, "x" is a letter jump of its own, not "fox".
        _ = session.handle(.tick(100.2 + TypeAhead.pause + 0.5))
        let said = spoken(session.handle(.key(.character("x"))))
        #expect(said == ["Nothing starts with X."])
        #expect(session.state.focusedID == focused)
    }

    @Test func escapeClearsTheSearchAndLaterGoesBack() throws {
        var session = try mia()
        type("sh", &session)
        _ = session.handle(.tick(100.5))
        #expect(spoken(session.handle(.key(.escape))) == ["Search cleared."])
        #expect(session.state.route == .library)
        _ = session.handle(.tick(100.6))
        // Cleared: the next letter is a new search, and Escape goes back as ever.
        _ = session.handle(.tick(103))
        #expect(spoken(session.handle(.key(.escape))).first?.hasPrefix("This is the library") == true)
    }

    /// `h` alone is the next heading; inside a search it is a letter ("sh" finds the shepherds).
    @Test func lettersThatAreKeysOfTheirOwnAreLettersInsideASearch() throws {
        var session = try mia()
        type("sh", &session)
        let title = try #require(focusedTitle(session))
        #expect(try titles(withWordStarting: "sh").contains(title))
        #expect(session.focusedElement?.traits.contains(.header) == false)
    }

    /// The same letter again steps through the items starting with it, as a letter jump does.
    @Test func theSameLetterAgainStepsOn() throws {
        var session = try mia()
        type("w", &session)
        let first = session.state.focusedID
        type("w", &session, at: 100.3)
        #expect(session.state.focusedID != first)
        #expect(FocusEngine.jumpName(of: try #require(session.focusedElement)).lowercased().hasPrefix("w"))
    }

    /// Issue 43: a slow or one-finger typist, a letter every second and a half, still makes one
    /// search: "grap" finds the grapes (not four jumps), and its `a` does not open the Actions menu.
    @Test func aLetterEverySecondAndAHalfIsOneSearch() throws {
        var session = try mia()
        var said: [String] = []
        for (index, letter) in "grap".enumerated() {
            _ = session.handle(.tick(100 + Double(index) * 1.5))
            said += spoken(session.handle(.key(.character(letter))))
        }
        #expect(focusedTitle(session) == "The Fox and the Grapes", "\(said)")
        #expect(session.state.route == .library, "the a was a letter of the search, not the Actions menu")
        #expect(said.last?.hasPrefix("The Fox and the Grapes, ") == true, "\(said)")
    }

    /// The answer says how to reach the next match, and the same letter again goes there, as in
    /// Orca's and NVDA's lists: one letter, and a search's last letter where it would match nothing.
    @Test func theAnswerSaysWhichLetterGoesToTheNextMatchAndItDoes() throws {
        var session = try mia()
        let first = try #require(type("w", &session).first)
        #expect(first.contains(", 1 of ") && first.contains(" matches, type w again for the next"), "\(first)")
        let second = try #require(type("w", &session, at: 101.4).first)
        #expect(second.contains(", 2 of ") && second.contains("type w again for the next"), "\(second)")

        var search = try mia()
        let foxes = try titles(withWordStarting: "fox")
        let found = try #require(type("fox", &search).first)
        #expect(found.contains(" of \(foxes.count) matches, type x again for the next"), "\(found)")
        let before = search.state.focusedID
        _ = search.handle(.tick(101.5))
        let next = try #require(spoken(search.handle(.key(.character("x")))).first)
        #expect(search.state.focusedID != before)
        #expect(foxes.contains(try #require(focusedTitle(search))))
        #expect(next.contains(" of \(foxes.count) matches"), "still the fox search: \(next)")
    }

    /// The hint is in the child's language.
    @Test(arguments: [("es", "escribe w otra vez para el siguiente"), ("fr", "tape w encore pour le suivant"), ("de", "tippe w noch einmal für den nächsten")])
    func theNextMatchHintIsTranslated(language: String, hint: String) throws {
        var options = SessionOptions()
        options.interfaceLanguage = language
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Mia", age: 6)])
        var session = Session(catalog: try Self.library.get(), snapshot: snapshot, options: options, profile: "Mia", languages: LanguageFixtures.languages)
        _ = session.start()
        let said = try #require(type("w", &session).first)
        #expect(said.contains(hint), "\(said)")
    }

    /// Type-ahead is in every list: the profiles screen too.
    @Test func typeAheadWorksOnTheProfilesScreen() {
        let snapshot = SessionSnapshot(
            profiles: ["Ada", "Mia", "Milo", "Sam"].enumerated().map { ChildProfile(id: Int64($0.offset + 1), name: $0.element, age: 6) })
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot)
        _ = session.start()
        let said = type("mil", &session)
        #expect(session.state.focusedID == "profile-Milo")
        #expect(said.first?.hasPrefix("Milo, the only match") == true, "\(said)")
    }

    // MARK: - One rule

    /// Lookup and completion find the same stories for the same letters (a word inside a title too).
    @Test func lookupAndTheMatchingRuleAgree() throws {
        let catalog = try Self.library.get()
        for typed in ["lighth", "grapes", "comet", "fox and the gr", "CAPTAIN"] {
            let found = NameMatch.ranked(catalog.entries, typed: typed) { [$0.title, $0.id] }
            switch catalog.resolve(typed) {
            case .success(let entry): #expect(found.first?.id == entry.id, "\(typed)")
            case .failure(.ambiguous(_, let matches)): #expect(Set(matches.map(\.id)).isSubset(of: Set(found.map(\.id))), "\(typed)")
            case .failure(let error): Issue.record("\(typed): \(error)")
            }
        }
        #expect(NameMatch.match("light", in: "The Lighthouse Cat") == .word)
        #expect(NameMatch.match("comet", in: "captain-nine-and-the-comet") == .word)
        #expect(NameMatch.match("dragon", in: "El dragón que tenía hipo") == .word, "accents fold")
        #expect(NameMatch.match("grandmas", in: "Grandma’s Umbrella Boat") == nil, "an apostrophe is kept")
        #expect(NameMatch.match("ighthouse", in: "The Lighthouse Cat") == nil, "the middle of a word is not a beginning")
    }

    // MARK: - Stopping keeps the place at hand

    func readPip(_ session: inout Session, hearing sentences: Int) throws -> Story {
        _ = session.push(.story("pip-and-the-puddle"))
        _ = session.handle(.command(.activate))
        let story = try #require(session.state.reader?.story)
        for index in StoryMap(story: story).spokenSentences.prefix(sentences) {
            _ = session.handle(.narration(.sentenceStarted(index)))
            _ = session.handle(.narration(.sentenceFinished(index)))
        }
        return story
    }

    func maya() -> Session {
        Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
    }

    @Test(arguments: [Key.character("q"), Key.escape])
    func stoppingFocusesGoOnReadingAndEnterGoesOn(key: Key) throws {
        var session = maya()
        _ = session.start()
        _ = try readPip(&session, hearing: 2)
        // Start again had the focus when reading began (it was pressed).
        let stopped = spoken(session.handle(.key(key)))
        #expect(session.state.route == .story("pip-and-the-puddle"))
        #expect(session.state.focusedID == "resume")
        #expect(stopped.last?.contains("Go on from page") == true || stopped.last?.contains("Go on reading") == true, "\(stopped)")
        let goOn = spoken(session.handle(.key(.enter)))
        #expect(goOn.first?.hasPrefix("Going on with Pip and the Puddle") == true, "\(goOn)")
    }

    @Test func inTheKioskToo() throws {
        var session = maya()
        session.startKiosk(KioskOptions(), now: 1000)
        _ = session.start()
        _ = try readPip(&session, hearing: 2)
        _ = session.handle(.key(.character("q")))
        #expect(session.state.focusedID == "resume")
        #expect(spoken(session.handle(.key(.enter))).first?.hasPrefix("Going on with") == true)
    }

    /// "Welcome back" says the story and the place; Go on reading is then only named.
    @Test func theWelcomeSaysThePlaceOnce() throws {
        var snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)])
        snapshot.readings["Maya"] = ["pip-and-the-puddle": ReadingRecord(sentenceIndex: 5)]
        snapshot.inProgress["Maya"] = "pip-and-the-puddle"
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        let greeting = try #require(spoken(session.start()).last)
        #expect(greeting.hasPrefix("Welcome back Maya. You were reading Pip and the Puddle, page "), "\(greeting)")
        #expect(greeting.components(separatedBy: "Pip and the Puddle").count == 2, "the title once: \(greeting)")
        #expect(greeting.components(separatedBy: " of 6").count == 2, "the place once: \(greeting)")
        #expect(greeting.contains("Go on reading, button."), "\(greeting)")
    }

    // MARK: - Honest counts

    func counted(_ effects: [Effect]) -> Bool {
        effects.contains { if case .save(.recordFinished) = $0 { true } else { false } }
    }

    @Test func jumpingToTheEndSaysTheEndAndCountsNothing() throws {
        var session = maya()
        _ = session.start()
        let story = try readPip(&session, hearing: 2)
        _ = session.handle(.key(.end))
        let last = try #require(StoryMap(story: story).spokenSentences.last)
        _ = session.handle(.narration(.sentenceStarted(last)))
        _ = session.handle(.narration(.sentenceFinished(last)))
        let end = session.handle(.narration(.finished))
        #expect(!counted(end))
        #expect(spoken(end) == ["The end. Press Escape to go back."])
        #expect(session.state.reading("pip-and-the-puddle").readCount == 0)
    }

    @Test func hearingTheWholeStoryCounts() throws {
        var session = maya()
        _ = session.start()
        let story = try readPip(&session, hearing: .max)
        #expect(StoryMap(story: story).spokenSentences.count > 4)
        #expect(counted(session.handle(.narration(.finished))))
    }

    /// Half the story heard, then a jump to the end that is heard: the ending and most of it.
    @Test func halfHeardAndTheEndingCounts() throws {
        // With the last sentence: one short of half the story, then exactly half (rounded up).
        for (heard, counts) in [(0, false), (1, true)] {
            var session = maya()
            _ = session.start()
            let story = try readPip(&session, hearing: 0)
            let spoken = StoryMap(story: story).spokenSentences
            let half = (spoken.count + 1) / 2
            for index in spoken.prefix(half - 2 + heard) {
                _ = session.handle(.narration(.sentenceStarted(index)))
                _ = session.handle(.narration(.sentenceFinished(index)))
            }
            _ = session.handle(.key(.end))
            _ = session.handle(.narration(.sentenceStarted(spoken.last!)))
            _ = session.handle(.narration(.sentenceFinished(spoken.last!)))
            #expect(counted(session.handle(.narration(.finished))) == counts, "heard \(half - 1 + heard) of \(spoken.count)")
        }
    }

    /// Going on from a place kept by an earlier run: what came before it was heard then.
    @Test func goingOnFromAnEarlierRunsPlaceCountsAtTheEnd() throws {
        let story = try #require(SessionFixtures.catalog.story(id: "pip-and-the-puddle"))
        let spoken = StoryMap(story: story).spokenSentences
        let place = spoken[spoken.count * 2 / 3]
        var snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)])
        snapshot.readings["Maya"] = ["pip-and-the-puddle": ReadingRecord(sentenceIndex: place)]
        snapshot.inProgress["Maya"] = "pip-and-the-puddle"
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.activate))  // Go on reading (the welcome's focus)
        #expect(session.state.route == .reader)
        for index in spoken where index >= place {
            _ = session.handle(.narration(.sentenceStarted(index)))
            _ = session.handle(.narration(.sentenceFinished(index)))
        }
        #expect(counted(session.handle(.narration(.finished))))
    }

    // MARK: - Hints: full, short or off, per child

    func child(_ verbosity: HintVerbosity) -> Session {
        var settings = ReadingSettings()
        settings.hintVerbosity = verbosity
        let snapshot = SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, settings: settings)])
        return Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
    }

    @Test func fullHintsAreSaidOnEveryItem() {
        var session = child(.full)
        #expect(spoken(session.start()).last?.hasSuffix("Press Enter to change profile.") == true)
        _ = session.handle(.command(.nextHeading))
        #expect(spoken(session.handle(.command(.next))).first?.contains("Press Enter to open.") == true, "a story card")
    }

    /// Short: label and state as the child moves; the hint as a screen opens, and on request.
    @Test func shortHintsAreSaidAsAScreenOpensAndOnRequest() throws {
        var session = child(.short)
        #expect(spoken(session.start()).last?.hasSuffix("Press Enter to change profile.") == true)
        _ = session.handle(.command(.nextHeading))
        let moved = try #require(spoken(session.handle(.command(.next))).first)
        #expect(moved.hasPrefix("Story: "), "\(moved)")
        #expect(!moved.contains("Press "), "\(moved)")
        let asked = try #require(spoken(session.handle(.command(.whereAmI))).first)
        #expect(asked.contains("Press Enter to open."), "where am I gives the hint: \(asked)")
    }

    @Test func noHintsButOnRequest() throws {
        var session = child(.off)
        #expect(spoken(session.start()).last?.contains("Press ") == false)
        _ = session.handle(.command(.nextHeading))
        #expect(spoken(session.handle(.command(.next))).first?.contains("Press ") == false)
        #expect(spoken(session.handle(.command(.whereAmI))).first?.contains("Press Enter to open.") == true)
    }

    /// `set hints` and the Settings picker go through full, short and off, and are saved.
    @Test func theHintSettingHasThreeValuesAndIsSaved() throws {
        var session = child(.full)
        _ = session.start()
        let set = session.handle(.command(.set(name: "hints", value: "short")))
        #expect(session.state.profile.settings.hintVerbosity == .short)
        #expect(set.contains { if case .save(.saveSettings(let profile)) = $0 { profile.settings.hintVerbosity == .short } else { false } })
        #expect(spoken(session.handle(.command(.set(name: "hints", value: "loud")))).first?.contains("full, short or off") == true)
        #expect(session.state.profile.settings.hintVerbosity == .short)
        _ = session.handle(.command(.set(name: "hints", value: "on")))
        #expect(session.state.profile.settings.hintVerbosity == .full, "on is full, as the hints were on or off")
        _ = session.handle(.command(.settings))
        session.state.focusedID = "setting-hints"
        // Down to fewer hints and up to more, stopping at each end, as every picker does.
        var seen: [String] = []
        for command in [Command.decrease, .decrease, .decrease, .increase, .increase, .increase] {
            _ = session.handle(.command(command))
            seen.append(Screens.settingValue(.hints, session.state.profile))
        }
        #expect(seen == ["short", "off", "off", "short", "full", "full"])
    }

    /// The store keeps the verbosity; `hints` (what a kiosk not yet updated syncs) still says off.
    @Test func theStoreKeepsTheVerbosityAndSyncChecksIt() throws {
        let database = try TemporaryDatabase("hints")
        defer { database.remove() }
        let store = try database.open()
        let parent = try store.authorize(pin: nil)
        var settings = ReadingSettings()
        settings.hintVerbosity = .short
        _ = try store.addProfile(ChildProfile(name: "Mia", age: 6, settings: settings), authorization: parent)
        var mia = try #require(try store.profile(named: "Mia"))
        #expect(mia.settings.hintVerbosity == .short)
        mia.settings.hintVerbosity = .off
        _ = try store.updateProfile(mia, authorization: parent)
        #expect(try store.profile(named: "Mia")?.settings.hintVerbosity == .off)
        #expect(try store.profile(named: "Mia")?.settings.hints == false)
        #expect(StoryStore.syncedProfileFields.contains("hintVerbosity"))
        #expect(SyncValidation.profileFieldProblem("hintVerbosity", "short") == nil)
        #expect(SyncValidation.profileFieldProblem("hintVerbosity", "loud")?.contains("not a hint setting") == true)
    }
}
