import Foundation
import Testing

@testable import StoryKit

@Suite struct ProfileFormTests {
    @Test func fieldsComeInFocusOrderWithLabelHintValueAndConstraint() {
        let form = ProfileForm(editing: ChildProfile(id: 1, name: "Mia", age: 7, interests: ["space"]))
        #expect(
            form.fields.map(\.field) == [
                .name, .age, .interests, .voice, .rate, .pitch, .volume, .textSize, .motion, .theme, .hints, .stepMode,
                .lineFocus, .syllables, .spacing, .language, .brailleCode, .narration, .recordingTempo, .bedtime, .coachWait, .save, .cancel,
            ])
        #expect(form.fields.allSatisfy { !$0.label.isEmpty && !$0.hint.isEmpty && !$0.constraint.isEmpty })
        #expect(form.fields[0].hint == "the name shown and spoken to your child")
        #expect(form.fields[0].value == "Mia")
        #expect(form.fields[1].value == "7")
        #expect(form.fields[2].value == "space")
        #expect(form.fields[7].value == "large")
        #expect(form.fields[0].isFocused)
    }

    @Test func submittingMovesFocusToTheNextFieldUnlessTheFieldHasAProblem() {
        var form = ProfileForm()
        form.enter("Mia")
        #expect(form.submit() == .moved(to: .age, problem: nil))
        form.enter("abc")
        guard case .moved(to: .age, let problem?) = form.submit() else {
            Issue.record("expected the age to keep the focus, with its problem")
            return
        }
        #expect(problem.field == .age)
        form.enter("6")
        #expect(form.submit() == .moved(to: .interests, problem: nil), "put right, it moves on")
        var order: [ProfileField] = [form.focus]
        while form.focus != .save {
            _ = form.submit()
            order.append(form.focus)
        }
        #expect(
            order == [
                .interests, .voice, .rate, .pitch, .volume, .textSize, .motion, .theme, .hints, .stepMode,
                .lineFocus, .syllables, .spacing, .language, .brailleCode, .narration, .recordingTempo, .bedtime, .coachWait, .save,
            ])
    }

    @Test func saveReportsEveryProblemAndFocusesTheFirstInvalidField() {
        var form = ProfileForm(existingNames: ["Mia"])
        form.setText("mia", for: .name)
        form.setText("6.5", for: .age)
        form.setText("999", for: .rate)
        form.setText("purple", for: .theme)
        form.focus(on: .save)
        guard case .invalid(let problems) = form.save() else {
            Issue.record("an invalid form was saved")
            return
        }
        #expect(problems.map(\.field) == [.name, .age, .rate, .theme])
        #expect(
            problems.map(\.description) == [
                "Name: a profile named \"Mia\" already exists (names ignore case): choose another name or edit that profile",
                "Age: \"6.5\" is not a whole number: type a whole number of years from 2 to 12",
                "Speed: 999 is out of range: use a whole number from 80 to 450",
                "Theme: \"purple\" is not a theme: use one of default, dark, light, high-contrast-dark, high-contrast-light",
            ])
        #expect(form.focus == .name)
        #expect(form.fields.first { $0.field == .theme }?.problem?.field == .theme)

        form.setText("Leo", for: .name)
        guard case .invalid(let rest) = form.save() else {
            Issue.record("still invalid")
            return
        }
        #expect(rest.first?.field == .age)
        #expect(form.focus == .age)
    }

    @Test func aValidFormSavesTheTypedProfile() {
        var form = ProfileForm()
        for (field, text) in [
            (ProfileField.name, " Mia "), (.age, "7"), (.interests, "space, trains"), (.voice, "en-us"),
            (.rate, "120"), (.textSize, "accessibility2"), (.motion, "on"), (.theme, "dark"),
            (.hints, "off"), (.stepMode, "on"),
        ] {
            form.setText(text, for: field)
        }
        form.focus(on: .save)
        let expected = ChildProfile(
            name: "Mia", age: 7, interests: ["space", "trains"],
            settings: ReadingSettings(
                speech: SpeechSettings(rate: 120, pitch: 55, volume: 80, voice: "en-us"), textSize: .accessibility2,
                motion: .on, theme: .dark, hints: false, stepMode: true))
        #expect(form.submit() == .saved(.valid(expected)))
    }

    @Test func editingKeepsTheIdAndMayKeepItsOwnName() {
        var form = ProfileForm(editing: ChildProfile(id: 42, name: "Mia", age: 7), existingNames: ["Leo"])
        form.setText("MIA", for: .name)
        guard case .valid(let profile) = form.save() else {
            Issue.record("renaming to the same name in another case failed")
            return
        }
        #expect(profile.id == 42)
        #expect(profile.name == "MIA")
        form.setText("leo", for: .name)
        #expect(form.save() != .valid(profile))
    }

    @Test func cancelWithoutChangesClosesAndWithChangesAsksFirst() {
        var untouched = ProfileForm(editing: ChildProfile(id: 1, name: "Mia", age: 7))
        #expect(untouched.cancel() == .cancelled)

        var form = ProfileForm(editing: ChildProfile(id: 1, name: "Mia", age: 7))
        form.setText("8", for: .age)
        #expect(form.hasUnsavedChanges)
        guard case .needsConfirmation(let question) = form.cancel() else {
            Issue.record("cancel did not ask")
            return
        }
        #expect(question.contains("Discard"))
        #expect(form.isConfirmingCancel)
        form.keepEditing()
        #expect(!form.isConfirmingCancel)
        #expect(form.text(of: .age) == "8")
        form.focus(on: .cancel)
        guard case .cancel(.needsConfirmation) = form.submit() else {
            Issue.record("Enter on Cancel did not ask")
            return
        }
        #expect(form.confirmCancel() == .cancelled)

        var changedBack = ProfileForm(editing: ChildProfile(id: 1, name: "Mia", age: 7))
        changedBack.setText("8", for: .age)
        changedBack.setText("7", for: .age)
        #expect(changedBack.cancel() == .cancelled)
    }

    @Test func theLanguagePickerNamesEachLanguageInItselfAndSavesItsCode() throws {
        var form = ProfileForm(editing: ChildProfile(id: 1, name: "Mia", age: 7))
        #expect(ProfileField.language.choices == ["automatic", "English", "Español", "Français", "Deutsch"])
        #expect(form.text(of: .language) == "automatic")
        #expect(try form.profile().settings.interfaceLanguage == nil)
        form.setText("Français", for: .language)
        #expect(try form.profile().settings.interfaceLanguage == "fr")
        form.setText("de_DE", for: .language)
        #expect(try form.profile().settings.interfaceLanguage == "de")
        form.setText("Klingon", for: .language)
        #expect(form.problem(of: .language)?.message == "\"Klingon\" is not a language here: use one of automatic, English, Español, Français, Deutsch")
        var french = ChildProfile(id: 1, name: "Mia", age: 7)
        french.settings.interfaceLanguage = "fr"
        #expect(ProfileForm(editing: french).text(of: .language) == "Français")
    }

    @Test func problemsAreSaidInTheInterfacesLanguage() {
        var form = ProfileForm()
        form.setText("6.5", for: .age)
        let problem = form.problem(of: .age)
        #expect(problem?.description == "Age: \"6.5\" is not a whole number: type a whole number of years from 2 to 12")
        let french = try? MessageCatalog(
            POFile(
                parsing: String(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("po/fr.po"), encoding: .utf8)))
        #expect(
            problem?.description(in: french ?? .english)
                == "Âge : \"6.5\" n'est pas un nombre entier : tape un nombre entier d'années de 2 à 12")
    }
}
