package narwhal.core.health;

import java.util.Objects;
import narwhal.core.fleet.EngineCondition;
import org.jspecify.annotations.Nullable;

/**
 * A breaker decision about one engine, as router replicas share it: the engine taken out of
 * placement (held or ejected, with the cause that decides how it may come back) or readmitted.
 * The evidence behind it (streaks, probe results) stays with the replica that decided.
 *
 * @param iid the engine
 * @param condition what the engine is now
 * @param cause why it is out ({@code connection}, {@code stream}, ...); null when readmitted
 * @param producerIid after a crossed-decode failure, the producer its inference probe must use
 * @param detail one line saying why, as the deciding replica's journal has it
 */
public record EngineVerdict(String iid, EngineCondition condition, @Nullable String cause, @Nullable String producerIid,
    String detail) {

  public EngineVerdict {
    Objects.requireNonNull(iid, "iid");
    Objects.requireNonNull(condition, "condition");
    Objects.requireNonNull(detail, "detail");
  }
}
