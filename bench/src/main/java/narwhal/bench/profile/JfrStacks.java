package narwhal.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The CPU samples of a JFR recording ({@code jdk.ExecutionSample}: threads running Java code) as
 * collapsed stacks. JFR does not sample native or kernel frames, nor threads blocked in native
 * calls, so these stacks show only the Java part of the CPU time.
 */
final class JfrStacks {

  static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";

  private JfrStacks() {}

  static CollapsedStacks collapse(Path recording) throws IOException {
    CollapsedStacks stacks = new CollapsedStacks();
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (e.getEventType().getName().equals(EXECUTION_SAMPLE) && e.getStackTrace() != null) {
          stacks.add(frames(e.getStackTrace()), 1);
        }
      }
    }
    return stacks;
  }

  /** The stack's frames root first, as {@code package.Class.method}. */
  static List<String> frames(RecordedStackTrace trace) {
    List<RecordedFrame> top = trace.getFrames();
    List<String> out = new ArrayList<>(top.size());
    for (int i = top.size() - 1; i >= 0; i--) {
      RecordedFrame f = top.get(i);
      out.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
    }
    return out;
  }
}
