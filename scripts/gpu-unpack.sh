# Sourced by the device-side scripts (gpu-witness-run.sh, gpu-ab.sh) from the repository root:
# unpacks gpu-pack/ (scripts/gpu-pack.sh) into $P, writes the machine's description to
# "$O/info.log", and exports what the GPU test binaries read. Needs O (the output folder).
export P=/tmp/filsnark-gpu-pack
mkdir -p $P "$O"
for f in gpu-pack/*.gz; do b=$(basename "$f" .gz); gunzip -c "$f" > $P/$b; chmod +x $P/$b; done
cp gpu-pack/COMMIT $P/
{ cat $P/COMMIT; nvidia-smi; $P/filsnark info; } > "$O/info.log" 2>&1
export FILSNARK_BIN=$P/filsnark FILSNARK_EXPECT_GPU=1 FILSNARK_SELFTEST_N=65536 FILSNARK_GPU_TEST_MAX_LOG=18
