/// eSpeak NG's output format: 22050 Hz, mono, signed 16-bit, for every voice.
public enum SpeechAudioFormat {
    public static let sampleRate = 22050
    public static let channels = 1
    public static let bitsPerSample = 16
}
