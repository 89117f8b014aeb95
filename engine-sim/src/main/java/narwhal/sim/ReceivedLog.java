package narwhal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded record, oldest first: the requests received under /v1/, the prefill responses sent.
 * Thread-safe.
 */
final class ReceivedLog<T> {
  private final int capacity;
  private final ConcurrentLinkedDeque<T> requests = new ConcurrentLinkedDeque<>();
  private final AtomicInteger size = new AtomicInteger();

  ReceivedLog(int capacity) {
    this.capacity = capacity;
  }

  void add(T request) {
    if (capacity == 0) {
      return;
    }
    requests.addLast(request);
    // Trim the oldest so a long benchmark cannot grow the log without bound.
    if (size.incrementAndGet() > capacity && requests.pollFirst() != null) {
      size.decrementAndGet();
    }
  }

  List<T> snapshot() {
    return List.copyOf(new ArrayList<>(requests));
  }

  void clear() {
    while (requests.pollFirst() != null) {
      size.decrementAndGet();
    }
  }
}
