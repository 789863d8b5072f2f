import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The kiosk's rules, with time as an input: every test drives `Input.tick` or a `ManualMonotonicClock`.
@Suite struct KioskTests {
    static let start: TimeInterval = 1000

    func kiosk(idle: TimeInterval? = 300, limit: TimeInterval? = nil, profile: String? = "Maya") -> Session {
        let snapshot = SessionSnapshot(
            profiles: [
                ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"]),
                ChildProfile(id: 2, name: "Sam", age: 9, settings: ReadingSettings(speech: SpeechSettings(rate: 200))),
            ],
            pinIsSet: true)
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: profile)
        session.startKiosk(KioskOptions(idleTimeout: idle, timeLimit: limit), now: Self.start)
        _ = session.start()
        return session
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func typePIN(_ session: inout Session, _ digits: String) -> [Effect] {
        var last: [Effect] = []
        for digit in digits { last = session.handle(.key(.character(digit))) }
        return last + session.handle(.key(.enter))
    }

    func openStory(_ session: inout Session, _ id: String = "the-lighthouse-cat") {
        _ = session.handle(.command(.read(id)))
        #expect(session.state.route == .reader)
        #expect(session.state.reader?.status == .playing)
    }

    // MARK: Locked down

    @Test func startsOnTheLibraryLockedWithTheChildsSettingsOnly() {
        var session = kiosk()
        #expect(session.state.route == .library)
        #expect(session.state.options.isLocked)
        _ = session.handle(.command(.settings))
        #expect(session.state.route == .settings, "the child's settings need no PIN")
        let ids = Set(session.screen.elements.map(\.id))
        #expect(ids.isSuperset(of: ["setting-text-size", "setting-motion", "setting-theme", "setting-rate"]))
        #expect(ids.isDisjoint(with: ["setting-voice", "setting-pitch", "setting-volume", "setting-hints", "edit-profile"]))
        // Whatever the path, the profile form is not reached.
        _ = session.handle(.command(.activate))
        session.state.stack.append(.profileForm)
        _ = session.handle(.command(.next))
        #expect(session.state.route != .profileForm)
    }

    @Test(arguments: [
        Key.control("c"), .control("z"), .unknown("28"), .control("d"), .control("s"), .control("q"),
        .control("v"), .unknown("CSI 15~"), .unknown("ESC"),
    ])
    func controlKeysAndEscapeSequencesDoNothingAndAreCounted(key: Key) {
        var session = kiosk()
        _ = session.handle(.command(.nextHeading))
        let before = session.state
        let effects = session.handle(.key(key))
        #expect(!effects.contains(.exit))
        #expect(!session.state.hasQuit)
        #expect(session.state.stack == before.stack)
        #expect(session.state.focusedID == before.focusedID)
        #expect(session.state.kiosk?.blockedKeys == 1)
        #expect(spoken(effects) == ["That key does nothing here."])
    }

    @Test func quitProfileAndUnknownCommandsAreRefusedAndCounted() {
        var session = kiosk()
        for command in [Command.quit, .profile("Sam"), .profile(""), .type("x")] {
            let effects = session.handle(.command(command))
            #expect(!effects.contains(.exit))
            #expect(spoken(effects) == ["That is not available here."])
        }
        _ = session.handle(.invalid("I don't know '!sh'."))
        #expect(session.state.profileName == "Maya")
        #expect(session.state.route == .library)
        #expect(session.state.kiosk?.blockedKeys == 5)
        // Ctrl-W, "where am I", still works.
        #expect(spoken(session.handle(.key(.control("w")))).first?.hasPrefix("You are on Library") == true)
    }

    @Test func helpOnlyOffersWhatWorksHere() {
        var session = kiosk()
        _ = session.handle(.command(.help))
        let labels = session.screen.elements.map(\.label)
        #expect(!labels.contains("Control Q"))
        let commands = session.screen.elements.first { $0.id == "command-list" }?.value ?? ""
        #expect(commands.contains("read"))
        #expect(!commands.contains("quit") && !commands.contains("profile"))
    }

    @Test func theProfileCannotBeChangedFromTheLibrary() {
        var session = kiosk()
        #expect(session.screen.elements.contains { $0.id == "profile" && $0.traits.contains(.staticText) })
        session.state.focusedID = "profile"
        let effects = session.handle(.key(.enter))
        #expect(spoken(effects) == ["Only a grown-up can change the profile."])
        #expect(session.state.route == .library)
    }

    @Test func storiesOutsideTheProfilesAgesCannotBeReadByName() {
        var session = kiosk()
        let effects = session.handle(.command(.read("captain nine")))
        #expect(session.state.reader == nil)
        #expect(spoken(effects).first?.hasPrefix("That story is not in this library.") == true)
        let titles = FocusEngine(screen: session.screen).order.map(\.label)
        #expect(!titles.contains { $0.contains("Captain Nine") })
    }

    @Test func speedStaysWithinTwentyPercentOfTheParentsAndIsNotSaved() {
        var session = kiosk()
        #expect(session.state.kiosk?.rateRange == 112...168)
        var effects: [Effect] = []
        for _ in 0..<5 { effects = session.handle(.command(.faster)) }
        #expect(session.state.profile.speech.rate == 168)
        #expect(spoken(effects) == ["Speed can go from 112 to 168 words per minute here, so it is 168."])
        effects = session.handle(.command(.set(name: "rate", value: "60")))
        #expect(session.state.profile.speech.rate == 112)
        #expect(spoken(effects).last == "Speed can go from 112 to 168 words per minute here, so it is 112.")
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
        #expect(!effects.contains { if case .preview(let settings, _) = $0 { settings.rate != 112 } else { false } })
        // Inside the range it changes as usual, and still is not saved to the parent's profile.
        effects = session.handle(.command(.set(name: "speed", value: "150")))
        #expect(session.state.profile.speech.rate == 150)
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
        // The text size may change; the voice may not.
        _ = session.handle(.command(.set(name: "text-size", value: "xLarge")))
        #expect(session.state.profile.textSize == .xLarge)
        effects = session.handle(.command(.set(name: "voice", value: "fr")))
        #expect(session.state.profile.speech.voice == nil)
        #expect(spoken(effects) == ["That is not available here."])
    }

    /// The recording tempo is held as the speed is: within the parent's ±20 %, on every path a
    /// child changes it (`set`, the settings screen's arrows), said, and not saved.
    @Test func theRecordingTempoStaysWithinTwentyPercentOfTheParentsAndIsNotSaved() {
        var session = kiosk()
        #expect(session.state.kiosk?.tempoRange == 0.8...1.2)
        var effects = session.handle(.command(.set(name: "tempo", value: "2")))
        #expect(session.state.profile.settings.recordingTempo == 1.2)
        #expect(spoken(effects).last == "Recording tempo can go from 0.8 to 1.2 here, so it is 1.2.")
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
        effects = session.handle(.command(.set(name: "tempo", value: "0.5")))
        #expect(session.state.profile.settings.recordingTempo == 0.8)
        #expect(spoken(effects).last == "Recording tempo can go from 0.8 to 1.2 here, so it is 0.8.")
        // The settings screen's arrow: a step up from 0.8 is 1, inside; the next (1.25) is held at 1.2.
        _ = session.handle(.command(.settings))
        session.state.focus[session.state.route.focusKey] = "setting-recording-tempo"
        _ = session.handle(.command(.increase))
        #expect(session.state.profile.settings.recordingTempo == 1)
        effects = session.handle(.command(.increase))
        #expect(session.state.profile.settings.recordingTempo == 1.2)
        #expect(spoken(effects).contains { $0.contains("Recording tempo can go from 0.8 to 1.2 here, so it is 1.2.") }, "\(spoken(effects))")
        // Outside a kiosk the whole range is the child's.
        var free = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]), profile: "Maya")
        _ = free.start()
        _ = free.handle(.command(.set(name: "tempo", value: "2")))
        #expect(free.state.profile.settings.recordingTempo == 2)
    }

    @Test func speedClampWhileReadingChangesTheNarrationToTheClampedSpeed() {
        var session = kiosk()
        openStory(&session)
        _ = session.handle(.command(.faster))
        let effects = session.handle(.command(.faster))
        #expect(effects.contains(.changeSpeech(SpeechSettings(rate: 168))))
        #expect(!effects.contains(.changeSpeech(SpeechSettings(rate: 169))))
    }

    // MARK: The PIN

    @Test(arguments: [Key.unknown("CSI 24~"), .unknown("29"), .unknown("CSI 24;2~")])
    func theParentKeyOpensThePINPromptAndDigitsAreOnlyCounted(key: Key) {
        var session = kiosk()
        let opened = session.handle(.key(key))
        #expect(session.state.route == .pinPrompt)
        #expect(spoken(opened).first?.hasPrefix("For grown-ups. Parental PIN.") == true)
        var effects: [Effect] = []
        for digit in "739" { effects = session.handle(.key(.character(digit))) }
        #expect(spoken(effects) == ["3 digits entered."])
        let field = session.screen.elements.first { $0.id == "pin" }
        #expect(field?.value == "3 digits entered")
        #expect(!(field.map { "\($0)" } ?? "").contains("739"))
        #expect(session.state.kiosk?.blockedKeys == 0)
        #expect(session.handle(.key(.enter)).contains(.checkPIN("739")))
    }

    @Test func theRightPINOpensTheParentMenuAndLeaveExits() {
        var session = kiosk()
        openStory(&session)
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = typePIN(&session, "1234")
        let accepted = session.handle(.pinChecked(true))
        #expect(session.state.route == .parentMenu)
        #expect(spoken(accepted).first?.hasPrefix("PIN accepted. Parent menu.") == true)
        #expect(Set(session.screen.elements.map(\.id)).isSuperset(of: ["leave", "switch-profile", "resume"]))
        session.state.focusedID = "leave"
        let effects = session.handle(.key(.enter))
        #expect(effects.contains(.exit))
        #expect(effects.contains { if case .save(.savePosition(profileID: 1, story: "the-lighthouse-cat", _)) = $0 { true } else { false } })
        #expect(session.state.kiosk?.leftWithPIN == true)
    }

    @Test func aWrongPINIsSpokenKindlyAndTheLockoutCountsDown() {
        var session = kiosk()
        _ = session.handle(.key(.control("]")))
        _ = typePIN(&session, "0000")
        var effects = session.handle(.pinChecked(false))
        #expect(spoken(effects) == ["That PIN is not right. That's all right: try again."])
        #expect(session.state.route == .pinPrompt)
        #expect(session.state.pinEntry.isEmpty)
        _ = typePIN(&session, "0000")
        effects = session.handle(.pinLocked(remaining: 59.2))
        #expect(spoken(effects) == ["Too many tries. The PIN is locked: try again in 1 minute."])
        #expect(session.screen.elements.first?.label.contains("try again in 1 minute") == true)
        _ = session.handle(.tick(Self.start + 31))
        #expect(session.screen.elements.first?.label.contains("try again in 29 seconds") == true)
        #expect(session.kioskDeadline == Self.start + 32, "wakes each second to count down")
        effects = session.handle(.tick(Self.start + 61))
        #expect(spoken(effects) == ["You can try the PIN again."])
        // A right PIN after the wait still works; a wrong one is never a way out.
        _ = typePIN(&session, "1234")
        _ = session.handle(.pinChecked(true))
        #expect(session.state.route == .parentMenu)
    }

    @Test func escapeLeavesThePINPromptAndTheParentMenuLocksAgain() {
        var session = kiosk()
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.key(.escape))
        #expect(session.state.route == .library)
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.pinChecked(true))
        session.state.focusedID = "resume"
        _ = session.handle(.key(.enter))
        #expect(session.state.route == .library)
        #expect(session.state.kiosk?.parentUnlocked == false)
        #expect(!session.handle(.command(.quit)).contains(.exit))
    }

    @Test func switchingProfileFromTheParentMenu() {
        var session = kiosk(limit: 600)
        _ = session.handle(.tick(Self.start + 500))
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.pinChecked(true))
        session.state.focusedID = "switch-profile"
        _ = session.handle(.key(.enter))
        #expect(session.state.route == .profiles)
        session.state.focusedID = "profile-Sam"
        _ = session.handle(.key(.enter))
        #expect(session.state.profileName == "Sam")
        #expect(session.state.route == .library)
        #expect(session.state.kiosk?.profilesUsed == ["Maya", "Sam"])
        #expect(session.state.kiosk?.rateRange == 160...240, "Sam's parent-set speed is the new base")
        #expect(session.state.kiosk?.remaining == 600, "the new child's time starts afresh")
        #expect(session.state.kiosk?.parentUnlocked == false)
    }

    @Test func theProfilesScreenIsNeverReachedWithoutThePIN() {
        var session = kiosk()
        session.state.stack.append(.profiles)  // whatever the path
        _ = session.handle(.command(.next))
        #expect(session.state.route == .library)
    }

    // MARK: Idle reset

    @Test func idleResetStopsSavesReturnsToTheLibraryAndSaysSo() {
        var session = kiosk(idle: 120)
        openStory(&session)
        _ = session.handle(.command(.pause))
        #expect(session.kioskDeadline == Self.start + 120)
        #expect(session.handle(.tick(Self.start + 119)).isEmpty)
        let effects = session.handle(.tick(Self.start + 120))
        #expect(session.state.route == .library)
        #expect(session.state.stack == [.library])
        #expect(effects.contains { if case .save(.savePosition(profileID: 1, story: "the-lighthouse-cat", _)) = $0 { true } else { false } })
        #expect(spoken(effects).first?.hasPrefix("Nobody pressed a key for a while") == true)
        // Nothing more to reset: the next idle period is quiet.
        #expect(spoken(session.handle(.tick(Self.start + 300))).isEmpty)
    }

    @Test func idleResetStopsSpeechWhenReadingAndAKeyPostponesIt() {
        var session = kiosk(idle: 60)
        _ = session.handle(.command(.nextHeading))
        _ = session.handle(.tick(Self.start + 50))
        _ = session.handle(.key(.down))
        #expect(session.handle(.tick(Self.start + 100)).isEmpty, "a key 50 s ago: not idle yet")
        #expect(session.state.route == .library && session.state.focusedID != nil)
        let effects = session.handle(.tick(Self.start + 110))
        #expect(spoken(effects).first?.hasPrefix("Nobody pressed a key") == true)
        // While a story is heard, listening is not idleness; paused, it is.
        var reading = kiosk(idle: 60)
        openStory(&reading)
        #expect(reading.handle(.tick(Self.start + 100)).isEmpty)
        #expect(reading.state.route == .reader)
        reading.state.reader?.status = .paused
        let reset = reading.handle(.tick(Self.start + 161))
        #expect(reading.state.route == .library)
        #expect(!spoken(reset).isEmpty)
    }

    @Test func keysTheShellKeepsCountAsActivity() {
        var session = kiosk(idle: 60)
        _ = session.handle(.command(.next))
        _ = session.handle(.tick(Self.start + 50))
        _ = session.handle(.activity)  // typing on the `:` command line
        #expect(session.handle(.tick(Self.start + 100)).isEmpty)
        #expect(!spoken(session.handle(.tick(Self.start + 110))).isEmpty)
    }

    @Test func idleResetFromThePINPromptLocksAgain() {
        var session = kiosk(idle: 60)
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.key(.character("1")))
        _ = session.handle(.tick(Self.start + 60))
        #expect(session.state.route == .library)
        #expect(session.state.pinEntry.isEmpty)
    }

    // MARK: Time limit

    /// Issue 43: with 65 s left, `t` said "2 minutes left." and 10 s later "1 minute left.": the time
    /// said is the nearest whole minute.
    @Test func theTimeLeftIsSaidToTheNearestMinute() {
        var session = kiosk(idle: nil, limit: 600)
        _ = session.handle(.tick(Self.start + 535))
        #expect(spoken(session.handle(.key(.character("t")))) == ["1 minute left."], "65 s left")
        _ = session.handle(.tick(Self.start + 421))
        #expect(spoken(session.handle(.key(.character("t")))) == ["1 minute left."], "still 65 s: the clock never goes back")
        var fresh = kiosk(idle: nil, limit: 600)
        _ = fresh.handle(.tick(Self.start + 481))
        #expect(spoken(fresh.handle(.key(.character("t")))) == ["2 minutes left."], "119 s left")
        _ = fresh.handle(.tick(Self.start + 545))
        #expect(spoken(fresh.handle(.key(.character("t")))) == ["55 seconds left."])
    }

    @Test func warningsAtFiveAndOneMinuteThenTimeIsUp() {
        var session = kiosk(idle: nil, limit: 600)
        #expect(session.kioskDeadline == Self.start + 300)
        #expect(spoken(session.handle(.tick(Self.start + 200))).isEmpty)
        #expect(spoken(session.handle(.tick(Self.start + 300))) == ["5 minutes left."])
        #expect(spoken(session.handle(.tick(Self.start + 301))).isEmpty, "said once")
        #expect(session.kioskDeadline == Self.start + 540)
        #expect(spoken(session.handle(.key(.character("t")))) == ["5 minutes left."])
        #expect(session.screen.elements.last?.value == "5 minutes")
        #expect(spoken(session.handle(.tick(Self.start + 540))) == ["1 minute left."])
        #expect(spoken(session.handle(.key(.character("t")))) == ["1 minute left."])
        let up = session.handle(.tick(Self.start + 600))
        #expect(session.state.route == .timeUp)
        #expect(spoken(up) == ["Time is up. Your place in the story is kept. \(Session.wayOut)"], "said once, with the way out")
        #expect(spoken(session.handle(.key(.enter))) == ["Time is up. F12 is for a grown-up."], "keys after that say it shortly")
        #expect(session.kioskDeadline == nil, "nothing left to wake for")
        // Only the PIN leaves it.
        for key in [Key.escape, .enter, .character("h"), .home, .control("c")] { _ = session.handle(.key(key)) }
        _ = session.handle(.command(.home))
        #expect(session.state.route == .timeUp)
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.pinChecked(false))
        #expect(session.state.route == .pinPrompt)
        _ = session.handle(.key(.escape))
        #expect(session.state.route == .timeUp)
        _ = session.handle(.key(.unknown("CSI 24~")))
        _ = session.handle(.pinChecked(true))
        session.state.focusedID = "add-time"
        let added = session.handle(.key(.enter))
        #expect(session.state.route == .library)
        #expect(spoken(added).first == "Added 10 minutes. 10 minutes left.")
        #expect(session.state.kiosk?.remaining == 600)
    }

    @Test func aShortLimitHasNoWarningsLongerThanItself() {
        var session = kiosk(idle: nil, limit: 90)
        #expect(session.kioskDeadline == Self.start + 30)
        #expect(spoken(session.handle(.tick(Self.start + 30))) == ["1 minute left."])
        var tiny = kiosk(idle: nil, limit: 6)
        #expect(tiny.kioskDeadline == Self.start + 6)
        _ = tiny.handle(.tick(Self.start + 6))
        #expect(tiny.state.route == .timeUp)
    }

    @Test func readingStopsAtTheEndOfTheSentenceNotMidWord() {
        var session = kiosk(idle: nil, limit: 60)
        openStory(&session)
        _ = session.handle(.narration(.sentenceStarted(0)))
        _ = session.handle(.narration(.word(1)))
        let due = session.handle(.tick(Self.start + 60))
        #expect(session.state.route == .reader, "the sentence goes on")
        #expect(session.state.reader?.status == .playing)
        #expect(!due.contains(.stopNarration) && !due.contains(.pauseNarration))
        _ = session.handle(.narration(.word(2)))
        let end = session.handle(.narration(.sentenceFinished(0)))
        #expect(end.contains(.pauseNarration))
        #expect(session.state.route == .timeUp)
        #expect(spoken(end).contains("Time is up. Your place in the story is kept. \(Session.wayOut)"))
        #expect(session.state.snapshot.readings["Maya"]?["the-lighthouse-cat"]?.sentenceIndex != nil)
    }

    @Test func aSentenceThatNeverEndsIsCutAfterTheGrace() {
        var session = kiosk(idle: nil, limit: 60)
        openStory(&session)
        _ = session.handle(.tick(Self.start + 60))
        #expect(session.kioskDeadline == Self.start + 80)
        let cut = session.handle(.tick(Self.start + 80))
        #expect(cut.contains(.stopNarration))
        #expect(session.state.route == .timeUp)
    }

    @Test func theClockIsInjectable() {
        let clock = ManualMonotonicClock(Self.start)
        var session = kiosk(idle: 30)
        _ = session.handle(.command(.next))
        clock.advance(29)
        _ = session.handle(.tick(clock.now()))
        #expect(session.state.focusedID != nil)
        clock.advance(1)
        let effects = session.handle(.tick(clock.now()))
        #expect(!spoken(effects).isEmpty)
    }

    // MARK: Log and ending

    @Test func theLogCountsStoriesAndBlockedKeys() {
        var session = kiosk()
        openStory(&session)
        _ = session.handle(.command(.stop))
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.command(.read("the lighthouse cat")))
        _ = session.handle(.key(.control("c")))
        _ = session.handle(.key(.control("z")))
        #expect(session.state.kiosk?.storiesRead == ["the-lighthouse-cat", "pip-and-the-puddle"])
        #expect(session.state.kiosk?.blockedKeys == 2)
    }

    @Test func shutdownSavesAndExitsEvenThoughQuitIsNotAllowed() {
        var session = kiosk()
        openStory(&session)
        let effects = session.handle(.shutdown)
        #expect(effects.contains(.exit))
        #expect(effects.contains(.stopNarration))
        #expect(effects.contains { if case .save(.savePosition) = $0 { true } else { false } })
        #expect(session.state.kiosk?.leftWithPIN == false)
    }
}

@Suite struct KioskStoreTests {
    @Test func kioskSessionsAreLoggedAndListedNewestFirst() throws {
        let database = try TemporaryDatabase("kiosk")
        defer { database.folder.remove() }
        let store = try StoryStore(dataDirectory: database.url, clock: database.clock.wallClock, pinCost: .testing)
        let first = try store.beginKioskSession(profile: "Maya")
        database.clock.advance(by: 600)
        try store.updateKioskSession(id: first, profiles: ["Maya", "Sam"], storiesRead: ["fox"], blockedKeys: 7, endReason: "pin")
        database.clock.advance(by: 60)
        _ = try store.beginKioskSession(profile: "Ada")
        let all = try store.kioskSessions()
        #expect(all.map { $0.profiles.first } == ["Ada", "Maya"])
        #expect(all[0].endedAt == nil)
        #expect(all[1].endedAt == all[1].startedAt.addingTimeInterval(600))
        #expect(all[1].storiesRead == ["fox"])
        #expect(all[1].blockedKeys == 7)
        #expect(all[1].endReason == "pin")
        #expect(try store.kioskSessions(profile: "sam").count == 1)
        #expect(try store.kioskSessions(limit: 1).count == 1)
    }
}

extension KioskTests {
    // MARK: Speech (what a child and a grown-up hear)

    @Test(arguments: [(600, [300, 60]), (240, [60, 30]), (60, [30]), (20, [])] as [(TimeInterval, [TimeInterval])])
    func warningsScaleWithTheLimit(limit: TimeInterval, expected: [TimeInterval]) {
        #expect(KioskOptions.warnings(forLimit: limit) == expected)
    }

    @Test func aOneMinuteLimitIsWarnedAndTheTimeIsSaidAtStart() {
        var session = kiosk(idle: nil, limit: 60)
        #expect(spoken(session.kioskOpening()) == ["1 minute to read. Press t to hear how much is left."])
        #expect(spoken(session.handle(.tick(Self.start + 30))) == ["30 seconds left."])
    }

    /// The limit runs out while a grown-up is at the PIN prompt: the prompt stays, they are told,
    /// and the time-up screen comes when they go back.
    @Test func timeUpNeverHidesThePINPrompt() {
        var session = kiosk(idle: nil, limit: 120)
        _ = session.handle(.key(.unknown("CSI 24~")))
        #expect(session.state.route == .pinPrompt)
        let up = session.handle(.tick(Self.start + 121))
        #expect(session.state.route == .pinPrompt)
        #expect(spoken(up).contains("The child's time is up. Add time from the parent menu, or go back."))
        _ = session.handle(.key(.escape))
        #expect(session.state.route == .timeUp)
    }
}
