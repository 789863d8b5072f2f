extension ProfileField {
    /// The fields a grown-up edits away from a kiosk (on the site server's web page): every shared
    /// one but the name (a new name is agreed by the whole site, which a kiosk asks) and the
    /// interface language (kept per kiosk). How each is shown and stored: `ProfileField+Shared`.
    public static let shared: [ProfileField] = inputs.filter { $0 != .name && StoryStore.syncedProfileFields.contains($0.rawValue) }
}
