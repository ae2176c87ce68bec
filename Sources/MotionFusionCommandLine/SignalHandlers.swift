import Glibc
import MotionFusion

/// The command line's signal handling: an interrupted or crashing `motionfusion` removes its
/// half-written outputs (``PendingOutputs``). Signals belong to the program, so the library
/// installs none; `motionfusion`'s main installs these.
public enum SignalHandlers {
    /// The signals that end the process after removing pending outputs.
    public static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// The signals of a crash (a failed precondition or bounds check, a bad access): pending
    /// outputs are removed, then the handler installed before (the runtime's backtrace) takes over.
    public static let crashSignals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE]

    /// The actions the crash handlers replaced, by signal number.
    static let previousActions: UnsafeMutablePointer<sigaction> = {
        let p = UnsafeMutablePointer<sigaction>.allocate(capacity: 64)
        p.initialize(repeating: sigaction(), count: 64)
        return p
    }()

    /// Installs handlers for ``signals`` that unlink pending outputs and exit with 128 + the signal
    /// number (130, 143, 129, 131), and for ``crashSignals`` that unlink them and crash as before; and
    /// ignores SIGPIPE so a closed pipe is a write error (exit 1), not a silent death.
    public static func install() {
        PendingOutputs.prepare()
        _ = previousActions
        signal(SIGPIPE, SIG_IGN)
        for sig in signals {
            signal(sig) { received in
                PendingOutputs.removePending()
                _exit(128 + received)
            }
        }
        for sig in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { received, info, _ in
                PendingOutputs.removePending()
                // Restore the previous action. A fault recurs when its instruction runs again, with
                // its own address; a signal sent by kill or raise is sent again.
                sigaction(received, SignalHandlers.previousActions + Int(received), nil)
                if let info, info.pointee.si_code <= 0 { raise(received) }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO
            sigaction(sig, &action, previousActions + Int(sig))
        }
    }
}
