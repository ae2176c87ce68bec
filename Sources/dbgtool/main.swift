import MotionFusion
var s = MotionSimulator.Settings()
s.scenario = .slowRotation; s.duration = 60; s.rate = 100; s.errors = .calibrated; s.seed = 7
let trace = MotionSimulator(settings: s).run()
var runner = FilterRunner(KalmanFilter())
for (i, smp) in trace.samples.enumerated() {
    let e = runner.update(smp)
    let tq = smp.truth!
    let tilt = (e.attitude.inverseRotate(.unitZ) - tq.inverseRotate(.unitZ)).norm * 57.3
    if i % 100 == 0 && i < 1500 || i % 1000 == 0 { print(i, "tot", e.attitude.angle(to: tq).degrees, "tilt", tilt, "rest", e.diagnostics.atRest, "bias", e.gyroscopeBias * 57.3, "accrej", e.diagnostics.accelerometerRejected, "magrej", e.diagnostics.magnetometerRejected) }
}
