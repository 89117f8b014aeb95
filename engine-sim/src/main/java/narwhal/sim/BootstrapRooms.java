package narwhal.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The prefill side of SGLang's KV bootstrap: one room per disaggregated attempt, where the
 * prefill leg that computes the prompt and the decode engine that pulls its KV meet.
 *
 * <p>A room's KV is {@link State#READY} once its prefill has computed the prompt <em>and</em> a
 * decode engine has attached (the transfer needs both ends, so a prefill whose decode never comes
 * waits, as SGLang's does); {@link State#FAILED} when the prefill failed or was cancelled first.
 * A decode engine may attach before the prefill arrives. Thread-safe: callbacks run on the
 * executor each waiter named, never under the lock.
 */
final class BootstrapRooms {

  enum State {
    PENDING,
    READY,
    FAILED
  }

  /** A room's final word for a waiting decode engine. */
  record Outcome(State state, String message) {}

  /** Undoes a registration; safe to call after the callback ran. */
  interface Registration {
    void cancel();
  }

  /** Rooms kept, oldest first forgotten: enough for every attempt in flight on one engine. */
  private static final int MAX_ROOMS = 16_384;

  private final Map<Long, Room> rooms =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Room> eldest) {
          return size() > MAX_ROOMS;
        }
      };

  /** A prefill leg for {@code room} has started computing. */
  synchronized void prefillStarted(long room) {
    Room r = room(room);
    r.state = State.PENDING;
    r.message = "";
  }

  /**
   * Calls {@code attached} on {@code executor} once a decode engine has attached to {@code room}
   * (at once if one already has).
   */
  Registration awaitConsumer(long room, Executor executor, Runnable attached) {
    Waiter<Void> waiter = new Waiter<>(executor, ignored -> attached.run());
    synchronized (this) {
      Room r = room(room);
      if (r.consumers == 0) {
        r.producerWaiters.add(waiter);
        return () -> remove(room, waiter);
      }
    }
    waiter.fire(null);
    return () -> {};
  }

  /** The prefill of {@code room} handed its KV over: every attached decode engine may go on. */
  void ready(long room) {
    finish(room, State.READY, "");
  }

  /** The prefill of {@code room} failed or was cancelled before its KV was ready. */
  void failed(long room, String message) {
    finish(room, State.FAILED, message);
  }

  /**
   * Attaches a decode engine to {@code room} and calls {@code done} on {@code executor} when the
   * room is ready or failed (at once if it already is). Cancelling detaches it without failing
   * the room: a prefill then goes on waiting for another decode engine until its own timeout.
   */
  Registration attachConsumer(long room, Executor executor, Consumer<Outcome> done) {
    Waiter<Outcome> waiter = new Waiter<>(executor, done);
    List<Waiter<Void>> producers;
    Outcome now = null;
    synchronized (this) {
      Room r = room(room);
      r.consumers++;
      producers = new ArrayList<>(r.producerWaiters);
      r.producerWaiters.clear();
      if (r.state == State.PENDING) {
        r.consumerWaiters.add(waiter);
      } else {
        now = new Outcome(r.state, r.message);
      }
    }
    producers.forEach(p -> p.fire(null));
    if (now != null) {
      waiter.fire(now);
      return () -> {};
    }
    return () -> {
      synchronized (this) {
        Room r = rooms.get(room);
        if (r != null && r.consumerWaiters.remove(waiter)) {
          r.consumers--;
        }
      }
    };
  }

  synchronized @Nullable State state(long room) {
    Room r = rooms.get(room);
    return r == null ? null : r.state;
  }

  private void finish(long room, State state, String message) {
    List<Waiter<Outcome>> consumers;
    synchronized (this) {
      Room r = room(room);
      if (r.state != State.PENDING) {
        return;
      }
      r.state = state;
      r.message = message;
      consumers = new ArrayList<>(r.consumerWaiters);
      r.consumerWaiters.clear();
    }
    Outcome outcome = new Outcome(state, message);
    consumers.forEach(c -> c.fire(outcome));
  }

  private synchronized void remove(long room, Waiter<Void> producer) {
    Room r = rooms.get(room);
    if (r != null) {
      r.producerWaiters.remove(producer);
    }
  }

  /** Must hold the lock. */
  private Room room(long room) {
    return rooms.computeIfAbsent(room, k -> new Room());
  }

  private static final class Room {
    State state = State.PENDING;
    String message = "";
    int consumers;
    final List<Waiter<Void>> producerWaiters = new ArrayList<>(1);
    final List<Waiter<Outcome>> consumerWaiters = new ArrayList<>(1);
  }

  /** A callback bound to the executor it must run on; equal only to itself. */
  private static final class Waiter<T> {
    private final Executor executor;
    private final Consumer<T> callback;

    Waiter(Executor executor, Consumer<T> callback) {
      this.executor = executor;
      this.callback = callback;
    }

    void fire(@Nullable T value) {
      executor.execute(() -> callback.accept(value));
    }
  }
}
