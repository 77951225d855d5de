import { installSpeedGuard } from './speed-guard';

installSpeedGuard('integration');
