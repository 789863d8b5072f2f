import Foundation
import Synchronization
import Testing

@testable import StoryKit

/// The one idiom for owning a C library's handle (`HandleOwner` on a `SerialThread`): jobs in
/// order on one thread, the handle made and freed there, errors back to the caller, and the
/// runtime checks (off the thread, re-entry, a job after shutting down) stopping a child process.
@Suite struct HandleOwnerTests {
    /// A stand-in handle that notes where it was made, used and freed (the idiom is generic: the
    /// real handles are liblouis's, libhyphen's, LAME's, libopus's, BrlAPI's and PocketSphinx's,
    /// tested in their own suites).
    final class Probe: @unchecked Sendable {
        var uses: [Int] = []
        var threads: Set<UInt> = []
        /// The thread that made it.
        let madeOn = UInt(pthread_self())
    }

    struct Refused: Error, Equatable { var value: Int }

    /// An owner of a probe, and the probe; `freed` gets the thread each free ran on.
    static func owner(freed: LockedValue<[UInt]> = LockedValue([])) -> (HandleOwner<Probe>, Probe) {
        let made = LockedValue<Probe?>(nil)
        let owner = HandleOwner<Probe>(
            name: "test.handle",
            open: {
                let probe = Probe()
                made.withLock { $0 = probe }
                return probe
            },
            free: { _ in freed.withLock { $0.append(UInt(pthread_self())) } })
        return (owner, made.withLock { $0! })
    }

    /// The owner's thread, as its jobs see it.
    static func thread(of owner: HandleOwner<Probe>) throws -> UInt {
        try owner.withHandle { _ in UInt(pthread_self()) }
    }

    @Test func jobsRunInOrderOnTheOwnersThreadAndTheHandleIsMadeThere() throws {
        let (owner, probe) = Self.owner()
        let ownersThread = try Self.thread(of: owner)
        #expect(probe.madeOn == ownersThread)
        #expect(ownersThread != UInt(pthread_self()))
        // Submitted from two threads at once: each thread's jobs keep their order, and all run on one thread.
        let group = DispatchGroup()
        for sender in 0..<2 {
            DispatchQueue.global().async(group: group) {
                for index in 0..<500 {
                    try? owner.submit { probe in
                        probe.uses.append(sender * 1000 + index)
                        probe.threads.insert(UInt(pthread_self()))
                    }
                }
            }
        }
        group.wait()
        try owner.drain()
        let (uses, threads, onOwner) = try owner.withHandle { probe in (probe.uses, probe.threads.count, owner.isCurrent) }
        #expect(onOwner)
        #expect(!owner.isCurrent)
        #expect(threads == 1)
        #expect(uses.count == 1000)
        #expect(uses.filter { $0 < 1000 } == Array(0..<500))
        #expect(uses.filter { $0 >= 1000 } == Array(1000..<1500))
    }

    @Test func aJobsErrorComesBackToItsCaller() throws {
        let (owner, _) = Self.owner()
        #expect(throws: Refused(value: 7)) { try owner.withHandle { _ -> Int in throw Refused(value: 7) } }
        // The owner goes on: the next job runs.
        #expect(try owner.withHandle { probe in probe.uses.count } == 0)
    }

    @Test func aSubmittedJobsErrorComesBackFromTheCallsAfterIt() throws {
        let (owner, _) = Self.owner()
        try owner.submit { _ in throw Refused(value: 1) }
        try owner.submit { probe in probe.uses.append(1) }
        #expect(throws: Refused(value: 1)) { try owner.drain() }
        #expect(throws: Refused(value: 1)) { try owner.submit { _ in } }
        #expect(throws: Refused(value: 1)) { try owner.withHandle { _ in } }
    }

    @Test func anOpenThatFailsIsThrownByInit() {
        #expect(throws: Refused(value: 3)) {
            _ = try HandleOwner<Probe>(name: "test.unopened", open: { () throws -> Probe in throw Refused(value: 3) })
        }
    }

    @Test func shuttingDownFreesTheHandleOnItsThreadAfterTheQueuedJobsOnce() throws {
        let freed = LockedValue<[UInt]>([])
        let (owner, probe) = Self.owner(freed: freed)
        let ownersThread = try Self.thread(of: owner)
        try owner.submit { probe in probe.uses.append(1) }
        owner.shutDown()
        owner.shutDown()
        #expect(freed.withLock { $0 } == [ownersThread])
        #expect(probe.uses == [1])
        #expect(throws: HandleOwner<Probe>.Closed.self) { try owner.withHandle { _ in } }
        #expect(throws: HandleOwner<Probe>.Closed.self) { try owner.submit { _ in } }
    }

    @Test func anOwnerLetGoFreesItsHandleOnItsThread() throws {
        let freed = LockedValue<[UInt]>([])
        var ownersThread: UInt = 0
        do {
            let (owner, probe) = Self.owner(freed: freed)
            ownersThread = try Self.thread(of: owner)
            #expect(probe.madeOn == ownersThread)
        }
        #expect(freed.withLock { $0 } == [ownersThread])
    }

    @Test func aSerialThreadRunsInlineNothingAndEndsAfterItsJobs() {
        let thread = SerialThread(name: "test.serial")
        let order = LockedValue<[Int]>([])
        for index in 0..<100 { thread.enqueue { order.withLock { $0.append(index) } } }
        #expect(thread.run { thread.isCurrent })
        thread.close()
        #expect(order.withLock { $0 } == Array(0..<100))
    }

    // The checks stop the program; each is shown in a child process (Swift Testing's exit tests).

    @Test func touchingWhatAThreadOwnsOffItStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let thread = SerialThread(name: "test.owner")
            thread.run {}
            thread.preconditionOnThread("A libhyphen call")
        }
    }

    @Test func aJobThatCallsItsOwnOwnerStopsTheProgramInsteadOfHanging() async {
        await #expect(processExitsWith: .failure) {
            let owner = HandleOwner<Int>(name: "test.reentry", open: { 1 })
            _ = try? owner.withHandle { _ in try owner.withHandle { $0 } }
        }
    }

    @Test func aReentrantEntryStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let thread = SerialThread(name: "test.enter")
            thread.run {
                thread.identity.enter("A liblouis call") { thread.identity.enter("A liblouis call") {} }
            }
        }
    }

    @Test func aJobQueuedAfterCloseStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let thread = SerialThread(name: "test.closed")
            thread.close()
            thread.enqueue {}
        }
    }
}
