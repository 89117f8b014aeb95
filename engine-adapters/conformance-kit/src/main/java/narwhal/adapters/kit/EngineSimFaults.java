package narwhal.adapters.kit;

import java.util.ArrayList;
import java.util.List;
import narwhal.spi.Phase;

/**
 * {@link Fault}s as narwhal engine-sim fault specs (engine-sim/README.md, "Fault specs"), for
 * adapters whose simulator is engine-sim in one of its dialect modes. Text only, so the kit does
 * not depend on the simulator: the caller hands the specs to {@code FaultPlan.of(...)}.
 */
public final class EngineSimFaults {

  private EngineSimFaults() {}

  /** The specs to set on the engine playing {@code phase}: the faults aimed at it. */
  public static List<String> specsFor(Phase phase, List<Fault> faults) {
    List<String> specs = new ArrayList<>();
    for (Fault f : faults) {
      if (f.phase() == phase) {
        specs.add(spec(f));
      }
    }
    return specs;
  }

  /** One fault as an engine-sim spec, restricted to its phase where the fault is per request. */
  public static String spec(Fault f) {
    String leg = ",phase=" + f.phase().wireName();
    switch (f.kind()) {
      case STATUS:
        return "status=" + f.code() + leg + ",message=" + f.message();
      case DELAY_HEADERS:
        return "delay-headers=" + f.duration().toMillis() + leg;
      case CLOSE_ON_RECEIPT:
        return "refuse" + leg;
      case DEAD:
        // Engine-wide on purpose: health fails too.
        return "dead";
      case SILENCE_BEFORE_FIRST_TOKEN:
        return "silence-first=forever" + leg;
      case SILENCE_AFTER:
        return "silence-after=" + f.tokens() + leg;
      case METADATA_WHILE_SILENT:
        return "silence-after=" + f.tokens() + ",ms=" + f.duration().toMillis() + ",metadata-every="
            + f.every().toMillis() + leg;
      case EOF_AFTER:
        return "eof-after=" + f.tokens() + leg;
      case RESET_AFTER:
        return "reset-after=" + f.tokens() + leg;
      case DONE_BEFORE_ANY_TOKEN:
        return "done-first" + leg;
      case ERROR_EVENT_AFTER:
        return "error-after=" + f.tokens() + ",code=" + f.code() + leg + ",message=" + f.message();
      case DESCRIPTOR_MISSING:
        return "kv-none";
      case DESCRIPTOR_NO_ENGINE_IDENTITY:
        return "kv-missing-engine-id";
      case DESCRIPTOR_MALFORMED_BLOCK_IDS:
        return "kv-bad-block-ids";
      case DESCRIPTOR_OTHER_CONNECTOR:
        return "kv-wrong-connector";
      default:
        throw new IllegalArgumentException("no engine-sim spec for " + f);
    }
  }
}
