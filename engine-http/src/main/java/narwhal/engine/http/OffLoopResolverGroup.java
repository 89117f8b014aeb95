package narwhal.engine.http;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Resolves engine host names with the JDK resolver on a separate executor.
 *
 * <p>Netty's default resolver calls {@link InetAddress#getByName} on the event loop, which blocks
 * every request on that loop for as long as DNS takes. Engines are usually addressed by IP (which
 * never reaches a resolver: see {@link NettyEngineTransport}), but service names must not stall a
 * loop either.
 */
final class OffLoopResolverGroup extends AddressResolverGroup<InetSocketAddress> {

  private final Executor lookups;

  OffLoopResolverGroup(Executor lookups) {
    this.lookups = lookups;
  }

  @Override
  protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
    return new InetNameResolver(executor) {
      @Override
      protected void doResolve(String host, Promise<InetAddress> promise) {
        offLoop(promise, () -> InetAddress.getByName(host));
      }

      @Override
      protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
        offLoop(promise, () -> Arrays.asList(InetAddress.getAllByName(host)));
      }
    }.asAddressResolver();
  }

  private interface Lookup<T> {
    T run() throws Exception;
  }

  private <T> void offLoop(Promise<T> promise, Lookup<T> lookup) {
    try {
      lookups.execute(
          () -> {
            try {
              promise.trySuccess(lookup.run());
            } catch (Exception e) {
              promise.tryFailure(e);
            }
          });
    } catch (RejectedExecutionException e) {
      promise.tryFailure(e);
    }
  }
}
