# The training loader of pytorch/examples' imagenet/main.py: an ImageFolder of JPEGs under a
# directory given on the command line, RandomResizedCrop and a flip, workers from a flag.
import argparse
import os

import torch
import torch.utils.data
import torchvision.datasets as datasets
import torchvision.transforms as transforms

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
parser.add_argument('data', metavar='DIR', nargs='?', default='imagenet')
parser.add_argument('-j', '--workers', default=4, type=int, metavar='N')
parser.add_argument('-b', '--batch-size', default=256, type=int, metavar='N')


def main():
    args = parser.parse_args()
    traindir = os.path.join(args.data, 'train')
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                     std=[0.229, 0.224, 0.225])

    train_dataset = datasets.ImageFolder(
        traindir,
        transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            normalize,
        ]))

    train_sampler = None
    train_loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=args.batch_size, shuffle=(train_sampler is None),
        num_workers=args.workers, pin_memory=True, sampler=train_sampler)

    for epoch in range(90):
        for i, (images, target) in enumerate(train_loader):
            pass
