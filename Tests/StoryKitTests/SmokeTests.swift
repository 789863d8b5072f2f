import Testing
@testable import StoryKit

@Test func versionIsSet() { #expect(!StoryKitInfo.version.isEmpty) }
