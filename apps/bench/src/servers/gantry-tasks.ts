// The tasks section's server: a trivial tool that runs as a task (and the same tool as an
// ordinary call, the baseline), over stdio. `BENCH_TASK_STORE=redis` with `REDIS_URL` keeps the
// tasks in Redis (@gantry/redis), as a cluster node would; otherwise in memory.
import 'reflect-metadata';
import { Args, GantryFactory, Injectable, Module, stdio, type TaskStore, Tool } from '@gantry/core';
import { IsString } from 'class-validator';

class EchoArgs {
  @IsString()
  text!: string;
}

@Injectable()
class TaskTools {
  @Tool({ description: 'Echoes its input' })
  echo(@Args() args: EchoArgs) {
    return args.text;
  }

  @Tool({ description: 'Echoes its input, as a task', task: 'optional' })
  echoTask(@Args() args: EchoArgs) {
    return args.text;
  }
}

@Module({ providers: [TaskTools] })
class TasksBenchModule {}

async function store(): Promise<TaskStore | undefined> {
  if (process.env.BENCH_TASK_STORE !== 'redis') return undefined;
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('BENCH_TASK_STORE=redis needs REDIS_URL');
  const { RedisTaskStore } = await import('@gantry/redis');
  return new RedisTaskStore({ redis: url });
}

async function main() {
  const tasks = await store();
  const app = await GantryFactory.create(TasksBenchModule, {
    name: 'bench-tasks',
    version: '1.0.0',
    tasks: { store: tasks, maxActivePerPrincipal: 10_000 },
  });
  await app.listen(stdio());
}

void main();
