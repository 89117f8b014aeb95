package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import narwhal.sim.gpu.GpuProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --timing gpu}: its flags, its profile file, and the clear errors for what does not fit. */
class GpuFlagsTest {

  @TempDir
  Path dir;

  private Path file(String json) throws IOException {
    Path file = dir.resolve("gpu.json");
    Files.writeString(file, json, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void simpleTiming_isTheDefault() {
    assertThat(SimCli.parse(new String[0]).gpu()).isNull();
    assertThat(SimCli.parse(new String[] {"--timing", "simple"}).gpu()).isNull();
  }

  @Test
  void gpuTiming_withoutOtherFlags_takesTheProfileDefaults() {
    SimOptions options = SimCli.parse(new String[] {"--timing", "gpu"});

    assertThat(options.gpu()).isEqualTo(GpuProfile.defaults());
    assertThat(options.maxModelLen()).isEqualTo(32768);
    assertThat(options.kvTransferMillisPerToken()).isEqualTo(0.005);
  }

  @Test
  void gpuTiming_parsesEveryFlag() {
    SimOptions options = SimCli.parse(new String[] {
        "--timing=GPU", "--step-token-budget", "512", "--max-num-seqs", "64", "--prefill-base-ms", "3",
        "--prefill-ms-per-token", "0.2", "--prefill-ms-per-token-sq", "0.00001", "--decode-base-ms", "9",
        "--decode-ms-per-resident-token", "0.0002", "--decode-ms-per-seq", "0.05", "--kv-capacity-tokens", "50000",
        "--max-model-len", "16384", "--jitter", "0.1", "--kv-ms-per-token", "0.01", "--seed", "4"});

    assertThat(options.gpu()).isEqualTo(new GpuProfile(512, 64, 3, 0.2, 0.00001, 9, 0.0002, 0.05, 50_000, 0.1));
    assertThat(options.maxModelLen()).isEqualTo(16384);
    assertThat(options.kvTransferMillisPerToken()).isEqualTo(0.01);
    assertThat(options.seed()).isEqualTo(4);
    // --prefill-ms is the same flag: it sets the active mode's prefill base.
    assertThat(SimCli.parse(new String[] {"--timing", "gpu", "--prefill-ms", "7"}).gpu().prefillBaseMillis())
        .isEqualTo(7);
    assertThat(SimCli.parse(new String[] {"--prefill-base-ms", "7"}).prefillBaseMillis()).isEqualTo(7);
  }

  @Test
  void profileFile_setsTheValues_andFlagsOverrideIt() throws IOException {
    Path profile = file("{\"_comment\": \"an H100, scaled\", \"decode_base_ms\": 6, \"kv_capacity_tokens\": 90000,"
        + " \"max_model_len\": 8192, \"jitter\": 0.05, \"kv_ms_per_token\": 0.002, \"step_token_budget\": 1024}");

    SimOptions options = SimCli.parse(new String[] {
        "--timing", "gpu", "--gpu-profile", profile.toString(), "--step-token-budget", "256"});

    GpuProfile gpu = options.gpu();
    assertThat(gpu.decodeBaseMillis()).isEqualTo(6);
    assertThat(gpu.kvCapacityTokens()).isEqualTo(90_000);
    assertThat(gpu.jitter()).isEqualTo(0.05);
    assertThat(gpu.stepTokenBudget()).isEqualTo(256);
    assertThat(gpu.maxNumSeqs()).isEqualTo(GpuProfile.DEFAULT_MAX_NUM_SEQS);
    assertThat(options.maxModelLen()).isEqualTo(8192);
    assertThat(options.kvTransferMillisPerToken()).isEqualTo(0.002);
  }

  @Test
  void badProfileFiles_areRefusedWithTheFileAndTheKey() throws IOException {
    assertThatThrownBy(() -> parseWith(file("{\"decode_bsae_ms\": 6}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gpu profile " + dir.resolve("gpu.json") + ": unknown key 'decode_bsae_ms' (known: ")
        .hasMessageContaining("decode_base_ms");
    assertThatThrownBy(() -> parseWith(file("{\"max_num_seqs\": 2.5}")))
        .hasMessageEndingWith(": 'max_num_seqs' must be an integer, got 2.5");
    assertThatThrownBy(() -> parseWith(file("{\"jitter\": \"lots\"}")))
        .hasMessageEndingWith(": 'jitter' must be a number, got \"lots\"");
    assertThatThrownBy(() -> parseWith(file("{\"jitter\": 0.1, \"jitter\": 0.2}")))
        .hasMessageContaining("not valid JSON (line 1, column ")
        .hasMessageContaining("Duplicate field 'jitter'");
    assertThatThrownBy(() -> parseWith(file("{\"decode_base_ms\": 6,")))
        .hasMessageContaining(": not valid JSON (line 1");
    assertThatThrownBy(() -> parseWith(file("[8]")))
        .hasMessageEndingWith(": expected a JSON object of settings, e.g. {\"decode_base_ms\": 8}");
    assertThatThrownBy(() -> parseWith(file("{\"decode_base_ms\": -2}")))
        .hasMessage("invalid options: decode_base_ms must be a finite number >= 0, got -2.0");
    assertThatThrownBy(() -> parseWith(dir.resolve("missing.json")))
        .hasMessage("gpu profile " + dir.resolve("missing.json") + ": no such file");
  }

  private static SimOptions parseWith(Path profile) {
    return SimCli.parse(new String[] {"--timing", "gpu", "--gpu-profile", profile.toString()});
  }

  @Test
  void flagsOfTheOtherTimingMode_areRefusedRatherThanIgnored() {
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--decode-base-ms", "8"}))
        .hasMessage("--decode-base-ms applies to --timing gpu only (this engine runs --timing simple)");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--gpu-profile", "x.json"}))
        .hasMessage("--gpu-profile applies to --timing gpu only (this engine runs --timing simple)");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--timing", "gpu", "--itl-ms", "5"}))
        .hasMessage("--itl-ms applies to --timing simple only (this engine runs --timing gpu)");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--timing", "gpu", "--load-factor", "0.1"}))
        .hasMessage("--load-factor applies to --timing simple only (this engine runs --timing gpu)");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--timing", "tpu"}))
        .hasMessageContaining("Invalid value for option '--timing': timing must be simple or gpu, got 'tpu'");
  }

  @Test
  void kvCacheSmallerThanTheContext_isRefusedAsVllmRefusesToStart() {
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--timing", "gpu", "--kv-capacity-tokens", "1000"}))
        .hasMessage("invalid options: the KV cache (kv_capacity_tokens 1000) must hold max_model_len (32768) tokens,"
            + " as vLLM requires at start: lower max_model_len or raise kv_capacity_tokens");
    assertThat(SimCli.parse(new String[] {"--timing", "gpu", "--kv-capacity-tokens", "1000", "--max-model-len", "1000"})
        .gpu().kvCapacityTokens()).isEqualTo(1000);
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--timing", "gpu", "--jitter", "1.5"}))
        .hasMessage("invalid options: jitter must be in [0, 1), got 1.5");
  }

  @Test
  void usage_describesTheGpuFlagsWithTheirDefaults() {
    assertThat(SimCli.usage())
        .contains("--timing=MODE", "--gpu-profile=FILE", "--step-token-budget=N", "--decode-ms-per-resident-token=X")
        .contains("max_num_batched_tokens", "fixed time of a step that decodes, ms (default 8.0)",
            "fixed prefill time of a prompt, ms (default 2.0; gpu 5.0)", "(default 0.02; gpu 0.1)");
  }
}
