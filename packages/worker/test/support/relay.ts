/**
 * A TCP relay in front of the real broker, for tests that need the path to it to stall: while held, what a client
 * sends waits in the relay (in order) and what the broker sends still reaches the client, as on a congested link.
 * Nothing is changed or invented: `release()` delivers every held byte as it was sent.
 */
import net from 'node:net';

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  /** Client bytes not yet passed on (while held). */
  waiting: Buffer[];
}

export class Relay {
  /** Bytes the broker sent to the clients since the last `hold()`. */
  bytesToClientsWhileHeld = 0;
  private held = false;
  private readonly links = new Set<Link>();

  /** The broker's URL through the relay. */
  url = '';
  private readonly server: net.Server;

  private constructor(host: string, port: number) {
    this.server = net.createServer((client) => this.connect(client, host, port));
  }

  /** A relay on a free loopback port to the broker of `amqpUrl`. */
  static async start(amqpUrl: string): Promise<Relay> {
    const target = new URL(amqpUrl);
    const relay = new Relay(target.hostname, Number(target.port || 5672));
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    target.hostname = '127.0.0.1';
    target.port = String((relay.server.address() as net.AddressInfo).port);
    relay.url = target.toString();
    return relay;
  }

  /** From now on the clients' bytes wait in the relay. */
  hold(): void {
    this.held = true;
    this.bytesToClientsWhileHeld = 0;
  }

  /** Passes on every waiting byte, in order, and stops holding. */
  release(): void {
    this.held = false;
    for (const link of this.links) {
      for (const chunk of link.waiting.splice(0)) link.upstream.write(chunk);
    }
  }

  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private connect(client: net.Socket, host: string, port: number): void {
    const upstream = net.connect({ host, port });
    const link: Link = { client, upstream, waiting: [] };
    this.links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (this.held) link.waiting.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.held) this.bytesToClientsWhileHeld += chunk.length;
      client.write(chunk);
    });
    const end = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }
}
