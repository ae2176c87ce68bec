#!/usr/bin/env bash
# Builds the libFuzzer targets (one per trace reader and importer) and runs them.
#   Fuzz/run.sh [RUNS_PER_TARGET] [TARGET...]
# Seed corpora come from data/ and small hand-made files; findings land in Fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")"
RUNS="${1:-1000000}"
shift || true
TARGETS="${*:-Native Delimited EuRoC XioFusion XIMU3 Phyphox SensorLogger SensorFiles Zip Estimate Calibration CommandLine}"
for t in $TARGETS; do
    swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library --product "Fuzz$t" >&2
done
mkdir -p corpus findings
for t in $TARGETS; do
    mkdir -p "corpus/$t"
    # Seeds: the head of a bundled trace and of the README examples of each format.
    case "$t" in
        Native) head -50 ../data/sim_mixed_100hz.csv > "corpus/$t/seed.csv" ;;
        Delimited) printf 'columns=t=1,acc=2,gyr=5\nunits=gyr=deg/s,t=ms\nheader-rows=2\n\xffTime;Ax;Ay;Az;Gx;Gy;Gz\n[ms];[g];[g];[g];[dps];[dps];[dps]\n0;0,1;0;1;1,5e-001;0;0\n10;0,1;0;1;1,5e-001;0;0\n' > "corpus/$t/seed.txt" ;;
        Zip) python3 -c "import zipfile,io,sys; b=io.BytesIO(); z=zipfile.ZipFile(b,'w',zipfile.ZIP_DEFLATED); z.writestr('Accelerometer.csv','\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\"\n0,0,0,9.8\n0.01,0,0,9.8\n'); z.close(); sys.stdout.buffer.write(b.getvalue())" > "corpus/$t/seed.zip" ;;
        CommandLine)
            printf 'replay\0t.csv\0--output\0o.csv\0--score' > "corpus/$t/replay"
            printf 'reconstruct\0t.csv\0--rate\0050\0--report\0r.html' > "corpus/$t/reconstruct"
            printf 'info\0t.csv\0--json\0--columns\0t=1,gyr=2,acc=5' > "corpus/$t/info"
            printf 'evaluate\0t.csv\0--truth\0t.csv\0--mode\0006d' > "corpus/$t/evaluate" ;;
        Estimate) printf 't,qw,qx,qy,qz\n0,1,0,0,0\n0.01,0.7071,0,0,0.7071\n' > "corpus/$t/seed.csv" ;;
        Calibration) printf '{"magnetometer":{"hard_iron":[1,2,3],"soft_iron":[[1,0,0],[0,1,0],[0,0,1]]},"gyroscope":{"bias":[0,0,0]}}' > "corpus/$t/seed.json" ;;
        XioFusion) printf 'Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g),Magnetometer X (uT),Magnetometer Y (uT),Magnetometer Z (uT)\n0,0.1,0.2,0.3,0,0,1,20,0,-40\n0.01,0.1,0.2,0.3,0,0,1,20,0,-40\n' > "corpus/$t/seed.csv" ;;
        EuRoC) printf '#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n1403715523912143104,0,0,0,9.8,0,0\n1403715523917143040,0,0,0,9.8,0,0\n' > "corpus/$t/seed.csv" ;;
        XIMU3) printf 'Timestamp (us),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n100,0,0,0,0,0,1\n200,0,0,0,0,0,1\n\xffTimestamp (us),X (a.u.),Y (a.u.),Z (a.u.)\n150,0.1,0.2,-1\n' > "corpus/$t/seed.csv" ;;
        Phyphox) printf '"Time (s)","X (m/s^2)","Y (m/s^2)","Z (m/s^2)"\n0,0,0,9.8\n0.01,0,0,9.8\n\xff"Time (s)","X (rad/s)","Y (rad/s)","Z (rad/s)"\n0.005,0,0,0\n' > "corpus/$t/seed.csv" ;;
        SensorFiles) printf 'time_s,accel_x,accel_y,accel_z\n1700000000.000,0,0,1\n1700000000.040,0,0,1\n\xfft x y z\n1700000000.000 0 0.5 0\n\xfftimestamp,x,y,z\n2023-11-14T22:13:20.000Z,20,0,-40\n2023-11-14 23:13:20.2+01:00,20,0,-40\n' > "corpus/$t/seed.csv" ;;
        SensorLogger) printf 'time,seconds_elapsed,z,y,x\n1663562598302710300,0.0017,0.02,-0.01,-0.02\n\xfftime,seconds_elapsed,z,y,x\n1663562598302710300,0.0017,-0.6,9.7,0.5\n' > "corpus/$t/seed.csv" ;;
    esac
    echo "== Fuzz$t: $RUNS runs" >&2
    ".build/release/Fuzz$t" "$PWD/corpus/$t" -runs="$RUNS" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -max_total_time="${MAX_SECONDS:-0}" \
        -artifact_prefix="$PWD/findings/$t-" -print_final_stats=1 2>&1 | grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|Done" >&2
done
