package narwhal.adapters.kit;

import java.util.ArrayList;
import java.util.List;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.legs.EngineFailure;
import org.jspecify.annotations.Nullable;

/** The breaker's view: every leg failure the core reports, with the engine it blames. */
final class RecordingHealth implements EngineHealthTracker {

  private final List<EngineFailure> failures = new ArrayList<>();

  @Override
  public void prefillSucceeded(String iid) {}

  @Override
  public void decodeSucceeded(String iid) {}

  @Override
  public synchronized void legFailed(EngineFailure failure, @Nullable String producerIid) {
    failures.add(failure);
  }

  @Override
  public boolean admissionHeld() {
    return false;
  }

  synchronized List<EngineFailure> failures() {
    return List.copyOf(failures);
  }
}
