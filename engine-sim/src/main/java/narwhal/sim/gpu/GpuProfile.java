package narwhal.sim.gpu;

/**
 * How one simulated GPU engine spends its time: the step loop's limits and the cost model of a
 * step (see {@link StepLoop}).
 *
 * <p>A step that decodes {@code S} sequences whose contexts hold {@code T} tokens in all, and
 * computes prefill chunks {@code [s, e)} of some prompts, lasts
 *
 * <pre>
 *   (S > 0 ? decodeBase + decodePerResidentToken·T + decodePerSequence·S : 0)
 *   + Σ over chunks ( prefillPerToken·(e − s) + prefillPerTokenSquared·(e² − s²)
 *                     + (s == 0 ? prefillBase : 0) )
 * </pre>
 *
 * milliseconds, times {@code 1 + jitter·u} with {@code u} uniform in [−1, 1) from a seeded
 * generator. So a prompt of {@code L} tokens computed alone costs {@code prefillBase +
 * prefillPerToken·L + prefillPerTokenSquared·L²} however it is chunked (attention makes the
 * quadratic term), the decode interval grows linearly with the KV it reads and the sequences it
 * serves, and a step that carries a prefill chunk delays every decode of that engine.
 *
 * <p>The defaults resemble a Llama-3.1-8B on one H100 (bf16, vLLM V1 with chunked prefill), scaled
 * so that tests and benchmarks run in seconds: an 8 ms decode floor that 64 sequences of 1,000
 * tokens each roughly double (8 + 8 + 1.3 ms), about 0.1 ms per prompt token, an attention term
 * that adds 4 % at 2,000 tokens and 16 % at 8,000, and room for 200,000 KV tokens.
 *
 * @param stepTokenBudget tokens one step computes at most (vLLM's {@code max_num_batched_tokens})
 * @param maxNumSeqs sequences running at once at most (vLLM's {@code max_num_seqs})
 * @param prefillBaseMillis fixed cost of a prompt, paid in its first chunk
 * @param prefillMillisPerToken cost per prompt token computed
 * @param prefillMillisPerTokenSquared cost of a chunk {@code [s, e)} per {@code e² − s²}
 * @param decodeBaseMillis fixed cost of a step that decodes anything
 * @param decodeMillisPerResidentToken cost per context token of the sequences a step decodes
 * @param decodeMillisPerSequence cost per sequence a step decodes
 * @param kvCapacityTokens KV cache size in tokens; a running sequence holds its prompt plus the
 *     tokens it generated
 * @param jitter multiplicative noise on every step's duration, in [0, 1); 0 for none
 */
public record GpuProfile(
    int stepTokenBudget,
    int maxNumSeqs,
    double prefillBaseMillis,
    double prefillMillisPerToken,
    double prefillMillisPerTokenSquared,
    double decodeBaseMillis,
    double decodeMillisPerResidentToken,
    double decodeMillisPerSequence,
    int kvCapacityTokens,
    double jitter) {

  // Constants so that flag help text (annotation strings) can quote them and never drift.
  public static final int DEFAULT_STEP_TOKEN_BUDGET = 2048;
  public static final int DEFAULT_MAX_NUM_SEQS = 256;
  public static final double DEFAULT_PREFILL_BASE_MILLIS = 5;
  public static final double DEFAULT_PREFILL_MILLIS_PER_TOKEN = 0.1;
  public static final double DEFAULT_PREFILL_MILLIS_PER_TOKEN_SQUARED = 0.000002;
  public static final double DEFAULT_DECODE_BASE_MILLIS = 8;
  public static final double DEFAULT_DECODE_MILLIS_PER_RESIDENT_TOKEN = 0.000125;
  public static final double DEFAULT_DECODE_MILLIS_PER_SEQUENCE = 0.02;
  public static final int DEFAULT_KV_CAPACITY_TOKENS = 200_000;
  public static final double DEFAULT_JITTER = 0;

  public GpuProfile {
    check(stepTokenBudget >= 1, "step_token_budget must be at least 1, got " + stepTokenBudget);
    check(maxNumSeqs >= 1, "max_num_seqs must be at least 1, got " + maxNumSeqs);
    checkMillis("prefill_base_ms", prefillBaseMillis);
    checkMillis("prefill_ms_per_token", prefillMillisPerToken);
    checkMillis("prefill_ms_per_token_sq", prefillMillisPerTokenSquared);
    checkMillis("decode_base_ms", decodeBaseMillis);
    checkMillis("decode_ms_per_resident_token", decodeMillisPerResidentToken);
    checkMillis("decode_ms_per_seq", decodeMillisPerSequence);
    check(kvCapacityTokens >= 1, "kv_capacity_tokens must be at least 1, got " + kvCapacityTokens);
    check(jitter >= 0 && jitter < 1, "jitter must be in [0, 1), got " + jitter);
  }

  /** The documented defaults. */
  public static GpuProfile defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .stepTokenBudget(stepTokenBudget)
        .maxNumSeqs(maxNumSeqs)
        .prefillBaseMillis(prefillBaseMillis)
        .prefillMillisPerToken(prefillMillisPerToken)
        .prefillMillisPerTokenSquared(prefillMillisPerTokenSquared)
        .decodeBaseMillis(decodeBaseMillis)
        .decodeMillisPerResidentToken(decodeMillisPerResidentToken)
        .decodeMillisPerSequence(decodeMillisPerSequence)
        .kvCapacityTokens(kvCapacityTokens)
        .jitter(jitter);
  }

  /**
   * Milliseconds to compute tokens {@code [start, end)} of a prompt in one step: the linear and
   * quadratic terms, plus the prompt's base cost when this is its first chunk.
   */
  public double prefillChunkMillis(long start, long end) {
    if (end <= start) {
      return 0;
    }
    double s = start;
    double e = end;
    double base = start == 0 ? prefillBaseMillis : 0;
    return base + prefillMillisPerToken * (e - s) + prefillMillisPerTokenSquared * (e * e - s * s);
  }

  /** Milliseconds to compute a whole prompt of {@code tokens} (however it is chunked). */
  public double prefillMillis(long tokens) {
    return prefillChunkMillis(0, tokens);
  }

  /**
   * The decode part of a step that decodes {@code sequences} sequences whose contexts hold {@code
   * residentTokens} tokens in all; 0 when it decodes none.
   */
  public double decodeMillis(long residentTokens, int sequences) {
    if (sequences <= 0) {
      return 0;
    }
    return decodeBaseMillis + decodeMillisPerResidentToken * residentTokens + decodeMillisPerSequence * sequences;
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  private static void checkMillis(String name, double value) {
    check(value >= 0 && Double.isFinite(value), name + " must be a finite number >= 0, got " + value);
  }

  /** Mutable builder holding the defaults; not thread-safe. */
  public static final class Builder {
    private int stepTokenBudget = DEFAULT_STEP_TOKEN_BUDGET;
    private int maxNumSeqs = DEFAULT_MAX_NUM_SEQS;
    private double prefillBaseMillis = DEFAULT_PREFILL_BASE_MILLIS;
    private double prefillMillisPerToken = DEFAULT_PREFILL_MILLIS_PER_TOKEN;
    private double prefillMillisPerTokenSquared = DEFAULT_PREFILL_MILLIS_PER_TOKEN_SQUARED;
    private double decodeBaseMillis = DEFAULT_DECODE_BASE_MILLIS;
    private double decodeMillisPerResidentToken = DEFAULT_DECODE_MILLIS_PER_RESIDENT_TOKEN;
    private double decodeMillisPerSequence = DEFAULT_DECODE_MILLIS_PER_SEQUENCE;
    private int kvCapacityTokens = DEFAULT_KV_CAPACITY_TOKENS;
    private double jitter = DEFAULT_JITTER;

    private Builder() {}

    // Plain setters, one line each: the record's components, documented there.
    public Builder stepTokenBudget(int v) { stepTokenBudget = v; return this; }
    public Builder maxNumSeqs(int v) { maxNumSeqs = v; return this; }
    public Builder prefillBaseMillis(double v) { prefillBaseMillis = v; return this; }
    public Builder prefillMillisPerToken(double v) { prefillMillisPerToken = v; return this; }
    public Builder prefillMillisPerTokenSquared(double v) { prefillMillisPerTokenSquared = v; return this; }
    public Builder decodeBaseMillis(double v) { decodeBaseMillis = v; return this; }
    public Builder decodeMillisPerResidentToken(double v) { decodeMillisPerResidentToken = v; return this; }
    public Builder decodeMillisPerSequence(double v) { decodeMillisPerSequence = v; return this; }
    public Builder kvCapacityTokens(int v) { kvCapacityTokens = v; return this; }
    public Builder jitter(double v) { jitter = v; return this; }

    /** Builds the profile; throws {@link IllegalArgumentException} naming an out-of-range value. */
    public GpuProfile build() {
      return new GpuProfile(stepTokenBudget, maxNumSeqs, prefillBaseMillis, prefillMillisPerToken,
          prefillMillisPerTokenSquared, decodeBaseMillis, decodeMillisPerResidentToken, decodeMillisPerSequence,
          kvCapacityTokens, jitter);
    }
  }
}
