package narwhal.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reports a leaked buffer while it ran.
 *
 * <p>Registered for every test class through JUnit's extension auto-detection (each module's
 * {@code junit-platform.properties} enables it). It installs a leak detector factory that records
 * every leak report (tests run with {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer
 * is tracked); after each class it collects garbage, makes Netty look for collected-but-unreleased
 * buffers, and fails if any were found. A leak therefore fails the build instead of scrolling by
 * in a log.
 */
public final class LeakGuard implements BeforeAllCallback, AfterAllCallback {

  private static final List<String> LEAKS = new ArrayList<>();
  private static boolean installed;

  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    install();
    synchronized (LeakGuard.class) {
      LEAKS.clear();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    for (int round = 0; round < 3; round++) {
      System.gc();
      Thread.sleep(20);
      // Leak reports are produced when the detector tracks a new buffer; allocate a few to poll.
      for (int i = 0; i < 8; i++) {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        a.release();
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
        b.release();
      }
    }
    List<String> found;
    synchronized (LeakGuard.class) {
      found = new ArrayList<>(LEAKS);
      LEAKS.clear();
    }
    if (!found.isEmpty()) {
      throw new AssertionError("Netty reported " + found.size() + " leaked buffer(s) in "
          + context.getDisplayName() + ":\n" + String.join("\n---\n", found));
    }
  }

  private static synchronized void record(String report) {
    LEAKS.add(report);
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<T> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      record(resourceType + " leaked:" + records);
      super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      record(resourceType + " leaked (no trace records)");
      super.reportUntracedLeak(resourceType);
    }
  }
}
