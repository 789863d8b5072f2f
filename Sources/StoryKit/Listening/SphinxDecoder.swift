import CPocketSphinx
import Foundation

/// A speech model as one folder of files (issue 45, item 6): the acoustic model and its
/// pronunciation dictionary. Only Debian's US English model is known for now.
public struct ListeningModel: Sendable, Hashable {
    /// The acoustic model's folder (`mdef`, `means`, `feat.params`…).
    public var acousticModel: String
    /// The pronunciation dictionary (cmudict's format: a word, then its phones).
    public var dictionary: String

    public init(acousticModel: String, dictionary: String) {
        self.acousticModel = acousticModel
        self.dictionary = dictionary
    }

    /// Debian's `pocketsphinx-en-us`.
    public static let englishUS = ListeningModel(
        acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")

    /// The model for a story's language, or nil: coaching is English-only for now.
    public static func forLanguage(_ language: String) -> ListeningModel? {
        language.lowercased().hasPrefix("en") ? .englishUS : nil
    }

    /// Why a story is not coached: said in the child's interface language (`messages`).
    public static func englishOnly(title: String, _ messages: MessageCatalog) -> String {
        messages.tr("Coaching is English-only for now: '{title}' is not in English", ["title": title])
    }
}

/// One PocketSphinx decoder. Not thread-safe: `ReadingCoach` owns it on its listening thread.
final class SphinxDecoder {
    /// A word of the decoder's best hypothesis, in 10 ms frames from the utterance's start.
    struct Segment: Hashable {
        var word: String
        var startFrame: Int
        var endFrame: Int
    }

    /// PocketSphinx's frames per second (the en-us model's `-frate`).
    static let framesPerSecond = 100
    static let sampleRate = 16000

    private let decoder: OpaquePointer
    private var searchFlip = false

    init(model: ListeningModel) throws(ListeningProblem) {
        for path in [model.acousticModel + "/mdef", model.dictionary] where !FileManager.default.fileExists(atPath: path) {
            throw ListeningProblem(N_("The speech model is missing ({path}): install Debian's pocketsphinx-en-us (scripts/setup.sh does)"), ["path": path])
        }
        guard let decoder = cps_decoder_new(model.acousticModel, model.dictionary) else {
            throw ListeningProblem(N_("PocketSphinx could not load the speech model in {path}"), ["path": model.acousticModel])
        }
        self.decoder = decoder
    }

    deinit { ps_free(decoder) }

    /// The word's phones in the dictionary ("HH EH L OW"), or nil when it has none.
    func phones(_ word: String) -> String? {
        guard let found = ps_lookup_word(decoder, word) else { return nil }
        defer { free(found) }
        return String(cString: found)
    }

    /// Adds `word` with `phones` to the dictionary; false when the decoder refuses it.
    func addWord(_ word: String, phones: String) -> Bool {
        ps_add_word(decoder, word, phones, 1) >= 0
    }

    /// Makes `grammar` the one followed from the next utterance on. Two search names take turns,
    /// so the search being replaced is never the one in use.
    ///
    /// Its probabilities are scaled by the language weight (`-lw`), as PocketSphinx's own reader
    /// of grammar files does (`fsg_model_read`); a JSGF grammar's weights are not, so with them
    /// the reading order had almost no say against the sounds.
    func useGrammar(_ grammar: CoachGrammar) throws(ListeningProblem) {
        searchFlip.toggle()
        let name = searchFlip ? "coach-a" : "coach-b"
        let logMath = ps_get_logmath(decoder)
        let weight = Float(cmd_ln_float_r(ps_get_config(decoder), "-lw"))
        guard let fsg = fsg_model_init(name, logMath, weight, Int32(grammar.stateCount)) else {
            throw ListeningProblem(N_("PocketSphinx refused the sentence's grammar"))
        }
        defer { fsg_model_free(fsg) }
        fsg.pointee.start_state = Int32(grammar.startState)
        fsg.pointee.final_state = Int32(grammar.finalState)
        let ids = grammar.words.map { fsg_model_word_add(fsg, $0) }
        for transition in grammar.transitions {
            let logProbability = Int32(Float(logmath_log(logMath, transition.probability)) * weight)
            if let word = transition.word {
                fsg_model_trans_add(fsg, Int32(transition.from), Int32(transition.to), logProbability, ids[word])
            } else {
                _ = fsg_model_null_trans_add(fsg, Int32(transition.from), Int32(transition.to), logProbability)
            }
        }
        // The search follows one move without a word at a time: their closure is added, as
        // PocketSphinx does for a JSGF grammar.
        glist_free(fsg_model_null_trans_closure(fsg, nil))
        // ps_set_fsg keeps its own reference to the grammar (ours is freed above).
        guard ps_set_fsg(decoder, name, fsg) >= 0, ps_set_search(decoder, name) >= 0 else {
            throw ListeningProblem(N_("PocketSphinx refused the sentence's grammar"))
        }
    }

    /// Starts an utterance whose frames count from 0 (a new stream: `ps_start_utt` alone keeps
    /// counting from the previous utterance).
    func startUtterance() throws(ListeningProblem) {
        guard ps_start_stream(decoder) >= 0, ps_start_utt(decoder) >= 0 else { throw ListeningProblem(N_("PocketSphinx could not start listening")) }
    }

    func endUtterance() {
        _ = ps_end_utt(decoder)
    }

    /// Decodes 16 kHz mono samples (in chunks, as they come).
    func process(_ samples: ArraySlice<Int16>) throws(ListeningProblem) {
        guard !samples.isEmpty else { return }
        let result = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0) }
        guard result >= 0 else { throw ListeningProblem(N_("PocketSphinx could not decode the audio")) }
    }

    /// The best hypothesis so far (partial while the utterance runs, final after `endUtterance`),
    /// its words only: silences, noises and sentence marks left out, alternate pronunciations
    /// (`word(2)`) named by their word. Frames count from the utterance's start: the decoder's own
    /// count does not always restart with the utterance (measured: after a grammar change it went
    /// on from an earlier count), so its offset is found from the last segment, which ends at the
    /// last frame searched.
    func segments() -> [Segment] {
        var out: [Segment] = []
        var lastEnd: Int32 = -1
        var seg = ps_seg_iter(decoder)
        while let current = seg {
            var start: Int32 = 0
            var end: Int32 = 0
            ps_seg_frames(current, &start, &end)
            lastEnd = max(lastEnd, end)
            if let raw = ps_seg_word(current) {
                var word = String(cString: raw)
                if let paren = word.firstIndex(of: "(") { word = String(word[..<paren]) }
                if let first = word.first, first != "<", first != "[", first != "+" {
                    out.append(Segment(word: word, startFrame: Int(start), endFrame: Int(end)))
                }
            }
            seg = ps_seg_next(current)
        }
        let base = max(0, Int(lastEnd) - (Int(ps_get_n_frames(decoder)) - 1))
        return out.map { Segment(word: $0.word, startFrame: $0.startFrame - base, endFrame: $0.endFrame - base) }
    }
}
