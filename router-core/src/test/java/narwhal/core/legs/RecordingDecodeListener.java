package narwhal.core.legs;

import java.util.ArrayList;
import java.util.List;
import narwhal.proto.v1.StreamEvent;

/** Keeps everything a decode leg reports, in order. */
final class RecordingDecodeListener implements DecodeListener {

  final List<StreamEvent> events = new ArrayList<>();
  final List<EngineFailure> failures = new ArrayList<>();
  int completions;

  @Override
  public void onEvent(StreamEvent event) {
    events.add(event);
  }

  @Override
  public void onComplete() {
    completions++;
  }

  @Override
  public void onFailure(EngineFailure failure) {
    failures.add(failure);
  }

  /** The one failure reported; fails the test unless there is exactly one and no completion. */
  EngineFailure failure() {
    if (failures.size() != 1 || completions != 0) {
      throw new AssertionError("expected exactly one failure, got " + failures + " and "
          + completions + " completions");
    }
    return failures.get(0);
  }

  boolean quiet() {
    return failures.isEmpty() && completions == 0;
  }
}
