// The echo tool written with Gantry's public API, as a user would write it.
import 'reflect-metadata';
import { Args, GantryFactory, Injectable, Module, stdio, Tool } from '@gantry/core';
import { IsString } from 'class-validator';
import { benchTelemetry } from './otel-mode';

class EchoArgs {
  @IsString()
  text!: string;
}

@Injectable()
class EchoTools {
  @Tool({ description: 'Echoes its input' })
  echo(@Args() args: EchoArgs) {
    return args.text;
  }
}

@Module({ providers: [EchoTools] })
class BenchModule {}

async function main() {
  const telemetry = await benchTelemetry();
  const app = await GantryFactory.create(BenchModule, { name: 'bench-gantry', version: '1.0.0', telemetry });
  await app.listen(stdio());
}

void main();
