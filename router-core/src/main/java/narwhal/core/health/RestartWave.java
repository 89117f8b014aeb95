package narwhal.core.health;

import java.util.HashSet;
import java.util.Set;
import narwhal.core.fleet.Fleet;

/**
 * The whole-wave restart policy ({@code recovery.engine_restart_policy: whole_wave}): once an
 * engine goes away, admission is held until every engine that went away during the wave is back
 * in placement. Written on the health monitor's loop; {@link #admissionHeld} is read by admission
 * from any thread.
 */
final class RestartWave {

  private final boolean enabled;
  private final BreakerJournal journal;
  private volatile boolean held;
  /** The engines that went away during the current wave and are not back yet. */
  private final Set<String> departed = new HashSet<>();

  RestartWave(boolean enabled, BreakerJournal journal) {
    this.enabled = enabled;
    this.journal = journal;
  }

  boolean admissionHeld() {
    return held;
  }

  /** {@code iid} left placement for {@code cause}; a departure starts (or joins) the wave. */
  void tookOut(String iid, OutCause cause) {
    if (!enabled || !cause.isDeparture()) {
      return;
    }
    departed.add(iid);
    if (!held) {
      held = true;
      journal.waveHold(iid);
    }
  }

  /** An engine came back: the wave ends when every engine that went away is in placement. */
  void readmitted(Fleet fleet) {
    departed.removeIf(iid -> fleet.get(iid).inPlacement());
    if (held && departed.isEmpty()) {
      held = false;
      journal.waveRelease();
    }
  }
}
