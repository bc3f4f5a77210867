"""Capture real Lightning console output (run by hand, not by the tests).

python lightning_fit.py tqdm > ../lightning_tqdm.txt 2>&1   # TQDMProgressBar, \r redraws
python lightning_fit.py rich > ../lightning_rich.txt 2>&1   # default RichProgressBar (rich installed)
script -q -c "stty cols 100 rows 40; python lightning_fit.py rich" /dev/null > ../lightning_rich_tty.txt
                                                             # the Rich bar drawn on a terminal
"""
import sys

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Tiny(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


x = torch.randn(80, 8)
y = x.sum(1)
train = DataLoader(TensorDataset(x, y), batch_size=16)
val = DataLoader(TensorDataset(x[:32], y[:32]), batch_size=16)
bar = [L.pytorch.callbacks.TQDMProgressBar()] if sys.argv[1:] == ["tqdm"] else None
L.Trainer(max_epochs=3, accelerator="cpu", logger=False, enable_checkpointing=False,
          enable_model_summary=False, callbacks=bar).fit(Tiny(), train, val)
